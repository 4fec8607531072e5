#include "fakes/fake_inbox_store.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <utility>

#include "app/inbox_rows.h"
#include "fakes/fake_chunk_index.h"
#include "fakes/fake_document_store.h"

namespace docgate {
namespace {

using RowState = FakeTables::InboxRowState;

// A consumer's transaction: one FakeTransaction and one writer per port on it.
class FakeConsumerTransaction final : public ConsumerTransaction {
 public:
  explicit FakeConsumerTransaction(FakeDatabase& database) : tx_(database) {}

  InboxState Claim(std::string_view consumer, std::string_view event_id, TimePoint at) override {
    return inbox_.Claim(consumer, event_id, at);
  }
  std::optional<Document> LockDocument(DocumentId id) override {
    return documents_.ReadDocument(id);
  }
  std::optional<std::string> ReadContent(DocumentId id, std::int32_t version) override {
    return documents_.ReadContent(id, version);
  }
  void ReplaceChunks(DocumentId id, std::int32_t version, const std::string& title,
                     const std::vector<std::string>& chunks,
                     const std::vector<std::string>& sections,
                     const std::vector<std::string>& text_keys) override {
    chunks_.Replace(id, version, title, chunks, sections, text_keys);
  }
  std::size_t CountStoredVectors(const EmbeddingModel& model,
                                 const std::vector<std::string>& text_keys) override {
    const FakeTables& tables = tx_.Open();
    return static_cast<std::size_t>(std::ranges::count_if(text_keys, [&](const std::string& key) {
      const auto row = tables.embeddings.find({model.name, model.dimensions, key});
      return row != tables.embeddings.end() && !row->second.vector.empty();
    }));
  }
  void SetIngestStatus(DocumentId id, IngestStatus status) override {
    documents_.SetIngestStatus(id, status);
  }
  void Commit() override { tx_.Commit(); }

 private:
  FakeTransaction tx_;
  FakeInboxWriter inbox_{tx_};
  FakeDocumentWriter documents_{tx_};
  FakeChunkWriter chunks_{tx_};
};

}  // namespace

FakeInboxStore::FakeInboxStore(std::shared_ptr<FakeDatabase> database)
    : database_(std::move(database)) {}

std::unique_ptr<ConsumerTransaction> FakeInboxStore::BeginConsumer() {
  return std::make_unique<FakeConsumerTransaction>(*database_);
}

ConsumerFailure FakeInboxStore::RecordFailure(std::string_view consumer, const OutboxEvent& event,
                                              std::string_view error, int max_attempts,
                                              TimePoint at) {
  return database_->Write([&](FakeTables& tables) {
    const auto [found, inserted] =
        tables.inbox.try_emplace({std::string(consumer), event.event_id});
    FakeTables::InboxRow& row = found->second;
    if (inserted) row.state = RowState::kFailing;
    if (row.state == RowState::kFailing) {
      ++row.attempts;
      row.last_error = error;
      row.updated_at = at;
      row.event = event;
      row.event->sequence = 0;
      if (row.attempts >= max_attempts) row.state = RowState::kParked;
    }
    return ConsumerFailure{row.attempts, row.state == RowState::kParked};
  });
}

std::vector<ParkedEvent> FakeInboxStore::ListParked(int limit) {
  std::vector<ParkedEvent> parked = database_->Read([](const FakeTables& tables) {
    std::vector<ParkedEvent> rows;
    for (const auto& [key, row] : tables.inbox) {
      if (row.state != RowState::kParked) continue;
      rows.push_back(
          ParkedEvent{key.first, *row.event, row.attempts, row.last_error, row.updated_at});
    }
    return rows;
  });
  std::sort(parked.begin(), parked.end(), [](const ParkedEvent& a, const ParkedEvent& b) {
    return std::tie(a.parked_at, a.consumer, a.event.event_id) <
           std::tie(b.parked_at, b.consumer, b.event.event_id);
  });
  parked.resize(std::min(parked.size(), static_cast<std::size_t>(std::max(limit, 0))));
  return parked;
}

std::vector<OutboxEvent> FakeInboxStore::Unpark(const std::optional<std::string>& event_id) {
  return database_->Write([&](FakeTables& tables) {
    std::vector<std::pair<TimePoint, OutboxEvent>> deleted;
    for (auto it = tables.inbox.begin(); it != tables.inbox.end();) {
      const bool match =
          it->second.state == RowState::kParked && (!event_id || it->first.second == *event_id);
      if (!match) {
        ++it;
        continue;
      }
      deleted.emplace_back(it->second.updated_at, *it->second.event);
      it = tables.inbox.erase(it);
    }
    return OldestParkedFirstOnce(std::move(deleted));
  });
}

int FakeInboxStore::PruneInbox(TimePoint cutoff, int limit) {
  return database_->Write([&](FakeTables& tables) {
    std::set<std::string> in_outbox;
    for (const auto& [sequence, row] : tables.outbox) in_outbox.insert(row.event.event_id);
    std::vector<std::pair<TimePoint, std::pair<std::string, std::string>>> expired;
    for (const auto& [key, row] : tables.inbox) {
      if (row.state == RowState::kDone && row.updated_at < cutoff &&
          !in_outbox.contains(key.second)) {
        expired.emplace_back(row.updated_at, key);
      }
    }
    std::sort(expired.begin(), expired.end());
    const auto count =
        std::min<std::size_t>(expired.size(), static_cast<std::size_t>(std::max(limit, 0)));
    for (std::size_t i = 0; i < count; ++i) tables.inbox.erase(expired[i].second);
    return static_cast<int>(count);
  });
}

InboxState FakeInboxWriter::Claim(std::string_view consumer, std::string_view event_id,
                                  TimePoint at) {
  auto& rows = tx_.Open().inbox;
  const auto [row, inserted] = rows.try_emplace({std::string(consumer), std::string(event_id)});
  if (!inserted && row->second.state != RowState::kFailing) {
    return row->second.state == RowState::kDone ? InboxState::kDone : InboxState::kParked;
  }
  row->second.state = RowState::kDone;
  row->second.updated_at = at;
  return InboxState::kNew;
}

}  // namespace docgate
