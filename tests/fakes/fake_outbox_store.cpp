#include "fakes/fake_outbox_store.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <utility>

namespace docgate {
namespace {

// A new row at the end of the outbox.
void AppendRow(FakeTables& tables, const OutboxEvent& event) {
  FakeTables::OutboxRow row;
  row.event = event;
  row.event.sequence = ++tables.last_sequence;
  tables.outbox.emplace(row.event.sequence, std::move(row));
}

void Unclaim(FakeTables::OutboxRow& row) {
  row.claimed_by.clear();
  row.claimed_until.reset();
}

// The approval event of a document's approved version whose ingestion is not done: kept by
// PruneDelivered.
bool AwaitsIngestion(const FakeTables& tables, const OutboxEvent& event) {
  if (event.type != EventType::kApproved) return false;
  const auto doc = tables.documents.find(event.document_id);
  return doc != tables.documents.end() && doc->second.approved_version == event.version &&
         doc->second.ingest_status != IngestStatus::kDone;
}

}  // namespace

FakeOutboxStore::FakeOutboxStore(std::shared_ptr<FakeDatabase> database)
    : database_(std::move(database)), token_(database_->NewInstanceToken()) {}

void FakeOutboxStore::ThrowIfCutOff() const {
  if (cut_off_) throw StorageUnavailable("fake store instance " + token_ + ": set unavailable");
}

std::vector<OutboxEvent> FakeOutboxStore::ClaimPending(int limit) {
  ThrowIfCutOff();
  // As on SQLite, an idle poll does not wait for the writer slot.
  const auto idle = [](const FakeTables& tables) {
    return std::ranges::all_of(
        tables.outbox, [](const auto& entry) { return entry.second.delivered_at.has_value(); });
  };
  return database_->WriteUnlessIdle(idle, [&](FakeTables& tables) {
    const auto now = std::chrono::system_clock::now();
    const TimePoint claim_now = database_->ClaimNow();
    const TimePoint claim_until = claim_now + database_->claim_ttl();
    std::vector<OutboxEvent> events;
    std::set<DocumentId> behind_a_head;  // documents whose oldest undelivered event was passed
    for (auto& [sequence, row] : tables.outbox) {
      if (static_cast<int>(events.size()) >= limit) break;
      if (row.delivered_at) continue;
      const bool is_head = behind_a_head.insert(row.event.document_id).second;
      const bool claimable =
          !row.claimed_until || *row.claimed_until < claim_now || row.claimed_by == token_;
      if (!is_head || row.next_attempt_at > now || !claimable) continue;
      row.claimed_by = token_;
      row.claimed_until = claim_until;
      events.push_back(row.event);
    }
    return events;
  });
}

void FakeOutboxStore::MarkDelivered(const std::vector<std::int64_t>& sequences, TimePoint at) {
  ThrowIfCutOff();
  if (sequences.empty()) return;
  database_->Write([&](FakeTables& tables) {
    for (const std::int64_t sequence : sequences) {
      const auto found = tables.outbox.find(sequence);
      if (found == tables.outbox.end() || found->second.delivered_at) continue;
      found->second.delivered_at = at;
      Unclaim(found->second);
    }
  });
}

void FakeOutboxStore::Defer(const std::vector<std::int64_t>& sequences,
                            std::chrono::milliseconds delay, std::chrono::milliseconds max_delay,
                            std::string_view reason) {
  ThrowIfCutOff();
  if (sequences.empty()) return;
  database_->Write([&](FakeTables& tables) {
    const auto now = std::chrono::system_clock::now();
    for (const std::int64_t sequence : sequences) {
      const auto found = tables.outbox.find(sequence);
      if (found == tables.outbox.end() || found->second.delivered_at ||
          found->second.claimed_by != token_) {
        continue;
      }
      FakeTables::OutboxRow& row = found->second;
      row.next_attempt_at =
          now + std::min(max_delay, delay * (std::int64_t{1} << std::min(row.attempts, 30)));
      ++row.attempts;
      row.last_error = reason;
      Unclaim(row);
    }
  });
}

void FakeOutboxStore::ReleaseClaims() {
  ThrowIfCutOff();
  database_->Write([&](FakeTables& tables) {
    for (auto& [sequence, row] : tables.outbox) {
      if (!row.delivered_at && row.claimed_by == token_) Unclaim(row);
    }
  });
}

int FakeOutboxStore::RenewClaims() {
  ThrowIfCutOff();
  return database_->Write([&](FakeTables& tables) {
    const TimePoint until = database_->ClaimNow() + database_->claim_ttl();
    int renewed = 0;
    for (auto& [sequence, row] : tables.outbox) {
      if (row.delivered_at || row.claimed_by != token_) continue;
      row.claimed_until = until;
      ++renewed;
    }
    return renewed;
  });
}

int FakeOutboxStore::PruneDelivered(TimePoint cutoff, int limit) {
  ThrowIfCutOff();
  return database_->Write([&](FakeTables& tables) {
    std::vector<std::pair<TimePoint, std::int64_t>> expired;  // (delivered_at, sequence)
    for (const auto& [sequence, row] : tables.outbox) {
      if (row.delivered_at && *row.delivered_at < cutoff && !AwaitsIngestion(tables, row.event)) {
        expired.emplace_back(*row.delivered_at, sequence);
      }
    }
    std::sort(expired.begin(), expired.end());
    const auto count =
        std::min<std::size_t>(expired.size(), static_cast<std::size_t>(std::max(limit, 0)));
    for (std::size_t i = 0; i < count; ++i) tables.outbox.erase(expired[i].second);
    return static_cast<int>(count);
  });
}

OutboxBacklog FakeOutboxStore::Backlog() {
  ThrowIfCutOff();
  return database_->Read([](const FakeTables& tables) {
    OutboxBacklog backlog;
    for (const auto& [sequence, row] : tables.outbox) {
      if (row.delivered_at) continue;
      ++backlog.pending;
      if (!backlog.oldest_occurred_at || row.event.occurred_at < *backlog.oldest_occurred_at) {
        backlog.oldest_occurred_at = row.event.occurred_at;
      }
    }
    return backlog;
  });
}

void FakeOutboxStore::Requeue(const OutboxEvent& event) {
  ThrowIfCutOff();
  database_->Write([&](FakeTables& tables) {
    for (auto& [sequence, row] : tables.outbox) {
      if (row.event.event_id != event.event_id) continue;
      row.delivered_at.reset();
      row.attempts = 0;
      row.next_attempt_at = {};
      row.last_error.clear();
      Unclaim(row);
      return;
    }
    AppendRow(tables, event);
  });
}

std::vector<OutboxEvent> FakeOutboxStore::FindStuckIngestions(TimePoint delivered_before,
                                                              int limit) {
  ThrowIfCutOff();
  return database_->Read([&](const FakeTables& tables) {
    std::vector<std::pair<TimePoint, OutboxEvent>> stuck;  // (delivered_at, event)
    for (const auto& [id, doc] : tables.documents) {
      if (!doc.approved_version || (doc.ingest_status != IngestStatus::kNone &&
                                    doc.ingest_status != IngestStatus::kPending)) {
        continue;
      }
      const auto chunks = tables.chunks.find(id);
      if (chunks != tables.chunks.end() && chunks->second.version == *doc.approved_version) {
        continue;  // chunked: what is missing is vectors, the embedding worker's
      }
      const FakeTables::OutboxRow* newest = nullptr;
      for (const auto& [sequence, row] : tables.outbox) {
        if (row.event.type == EventType::kApproved && row.event.document_id == id &&
            row.event.version == *doc.approved_version) {
          newest = &row;
        }
      }
      if (newest != nullptr && newest->delivered_at && *newest->delivered_at < delivered_before) {
        stuck.emplace_back(*newest->delivered_at, newest->event);
      }
    }
    std::sort(stuck.begin(), stuck.end(), [](const auto& a, const auto& b) {
      return std::tie(a.first, a.second.sequence) < std::tie(b.first, b.second.sequence);
    });
    std::vector<OutboxEvent> events;
    for (auto& [delivered_at, event] : stuck) {
      if (static_cast<int>(events.size()) >= limit) break;
      events.push_back(std::move(event));
    }
    return events;
  });
}

void FakeOutboxWriter::Append(const OutboxEvent& event) {
  FakeTables& tables = tx_.Open();
  for (const auto& [sequence, row] : tables.outbox) {
    if (row.event.event_id == event.event_id) {
      FakeViolation("UNIQUE constraint failed: event_id " + event.event_id);
    }
  }
  AppendRow(tables, event);
}

}  // namespace docgate
