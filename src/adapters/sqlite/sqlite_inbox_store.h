#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/ports/consumer_transaction.h"
#include "app/ports/inbox_store.h"

namespace docgate {

class SqliteSession;

// InboxStore on SQLite (kh_consumer_inbox), over a SqliteSession shared with the file's other
// stores; its SQL is in sqlite_inbox_store.cpp. BeginConsumer() is a write transaction like
// SqliteDocumentStore::Begin() (the writer slot, then BEGIN IMMEDIATE until Commit or destruction),
// so concurrent claims of one (consumer, event_id) run one after the other and the second sees the
// first's outcome. Its transaction is composed of the ports' writers on one SqliteWork: the
// inbox's claim (here), SqliteDocumentStore's lock, reads and ingest status, and
// SqliteChunkIndex::Replace. RecordFailure and Unpark take the writer slot and BEGIN IMMEDIATE;
// PruneInbox is one write with the writer slot; ListParked is a read. Nothing is ever run twice.
// Thread-safe.
class SqliteInboxStore final : public InboxStore {
 public:
  explicit SqliteInboxStore(std::shared_ptr<SqliteSession> session);

  std::unique_ptr<ConsumerTransaction> BeginConsumer() override;
  ConsumerFailure RecordFailure(std::string_view consumer, const OutboxEvent& event,
                                std::string_view error, int max_attempts, TimePoint at) override;
  std::vector<ParkedEvent> ListParked(int limit) override;
  std::vector<OutboxEvent> Unpark(const std::optional<std::string>& event_id) override;
  int PruneInbox(TimePoint cutoff, int limit) override;

 private:
  std::shared_ptr<SqliteSession> session_;
};

}  // namespace docgate
