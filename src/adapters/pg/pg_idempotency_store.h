#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>

#include "adapters/pg/pg_statements.h"
#include "app/ports/idempotency_store.h"

namespace docgate {

class PgSession;
class PgWork;

// IdempotencyStore on PostgreSQL, over a PgSession shared with the database's other stores; its
// SQL is in pg_idempotency_store.cpp. Autocommit statements: a reservation is INSERT ... ON
// CONFLICT DO UPDATE WHERE expired, then, when another request holds the key, a read of its row;
// concurrent reservations on any number of instances serialise on the primary key, so exactly one
// of them gets the key. Thread-safe.
class PgIdempotencyStore final : public IdempotencyStore {
 public:
  explicit PgIdempotencyStore(std::shared_ptr<PgSession> session);

  // The statements this store runs, for the session to prepare on every connection.
  static std::span<const pg_sql::Statement> Statements();
  // The idempotency part of a transition (StoreTransaction::CompleteIdempotentRequest), in the
  // transition's transaction: StorageError when `owner` no longer holds the in-flight record.
  static void Complete(PgWork& work, const std::string& caller, const std::string& key,
                       const std::string& owner, const std::string& response, TimePoint expires_at);

  std::optional<IdempotencyRecord> ReserveIdempotencyKey(const std::string& caller,
                                                         const std::string& key,
                                                         const std::string& fingerprint,
                                                         const std::string& owner, TimePoint now,
                                                         TimePoint lease_until) override;
  bool CompleteIdempotentRequest(const std::string& caller, const std::string& key,
                                 const std::string& owner, const std::string& response,
                                 TimePoint expires_at) override;
  void ReleaseIdempotencyKey(const std::string& caller, const std::string& key,
                             const std::string& owner) override;
  int PruneIdempotencyKeys(TimePoint now, int limit) override;

 private:
  std::shared_ptr<PgSession> session_;
};

}  // namespace docgate
