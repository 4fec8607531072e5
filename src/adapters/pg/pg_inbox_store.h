#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/pg/pg_statements.h"
#include "app/ports/consumer_transaction.h"
#include "app/ports/inbox_store.h"

namespace docgate {

class PgSession;

// InboxStore on PostgreSQL (kh_consumer_inbox), over a PgSession shared with the database's other
// stores; its SQL is in pg_inbox_store.cpp. BeginConsumer() is a transaction like
// PgDocumentStore::Begin(); its LockDocument is SELECT ... FOR UPDATE. Claim is INSERT ... ON
// CONFLICT on the inbox's primary key: a concurrent claim of the same (consumer, event_id) waits
// for the first transaction to end, then sees kDone if it committed, or claims the pair itself
// (kNew) if it rolled back. RecordFailure is one upsert on the same key, so concurrent failures of
// one pair each count; it and Unpark run in a transaction of their own (PgSession::Atomically),
// never twice; ListParked and PruneInbox are autocommit statements. Thread-safe.
class PgInboxStore final : public InboxStore {
 public:
  explicit PgInboxStore(std::shared_ptr<PgSession> session);

  // The statements this store runs, for the session to prepare on every connection.
  static std::span<const pg_sql::Statement> Statements();

  std::unique_ptr<ConsumerTransaction> BeginConsumer() override;
  ConsumerFailure RecordFailure(std::string_view consumer, const OutboxEvent& event,
                                std::string_view error, int max_attempts, TimePoint at) override;
  std::vector<ParkedEvent> ListParked(int limit) override;
  std::vector<OutboxEvent> Unpark(const std::optional<std::string>& event_id) override;
  int PruneInbox(TimePoint cutoff, int limit) override;

 private:
  std::shared_ptr<PgSession> session_;
};

}  // namespace docgate
