#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "app/ports/idempotency_store.h"

namespace docgate {

class SqliteSession;
class SqliteWork;

// IdempotencyStore on SQLite, over a SqliteSession shared with the file's other stores; its SQL is
// in sqlite_idempotency_store.cpp. Each call takes the writer slot, like every other write; a
// reservation reads and writes under BEGIN IMMEDIATE, which makes the check and the write one step
// for every process on the file, so exactly one of concurrent reservations gets the key.
// Thread-safe.
class SqliteIdempotencyStore final : public IdempotencyStore {
 public:
  explicit SqliteIdempotencyStore(std::shared_ptr<SqliteSession> session);

  // The idempotency part of a transition (StoreTransaction::CompleteIdempotentRequest), in the
  // transition's transaction: StorageError when `owner` no longer holds the in-flight record.
  static void Complete(SqliteWork& work, const std::string& caller, const std::string& key,
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
  std::shared_ptr<SqliteSession> session_;
};

}  // namespace docgate
