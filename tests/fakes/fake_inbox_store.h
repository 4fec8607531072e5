#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/ports/consumer_transaction.h"
#include "app/ports/inbox_store.h"
#include "fakes/fake_database.h"

namespace docgate {

// InboxStore on a FakeDatabase, shared with the database's other fakes. BeginConsumer() is a
// FakeTransaction like FakeDocumentStore::Begin() (the same writer slot, the same copy-and-swap,
// the same injected failures), so claims serialise as on SQLite; it is composed of the ports'
// writers: the inbox's (FakeInboxWriter), the documents' (FakeDocumentWriter: LockDocument,
// ReadContent, SetIngestStatus) and the chunks' (FakeChunkWriter). The other calls are writes or
// reads of their own. Thread-safe; it must outlive every transaction it hands out.
class FakeInboxStore final : public InboxStore {
 public:
  explicit FakeInboxStore(std::shared_ptr<FakeDatabase> database);

  std::unique_ptr<ConsumerTransaction> BeginConsumer() override;
  ConsumerFailure RecordFailure(std::string_view consumer, const OutboxEvent& event,
                                std::string_view error, int max_attempts, TimePoint at) override;
  std::vector<ParkedEvent> ListParked(int limit) override;
  std::vector<OutboxEvent> Unpark(const std::optional<std::string>& event_id) override;
  int PruneInbox(TimePoint cutoff, int limit) override;

 private:
  std::shared_ptr<FakeDatabase> database_;
};

// The inbox's part of a consumer transaction (ConsumerTransaction::Claim), on the transaction's
// copy of the tables.
class FakeInboxWriter {
 public:
  explicit FakeInboxWriter(FakeTransaction& tx) : tx_(tx) {}

  InboxState Claim(std::string_view consumer, std::string_view event_id, TimePoint at);

 private:
  FakeTransaction& tx_;
};

}  // namespace docgate
