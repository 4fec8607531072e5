#pragma once

#include <memory>
#include <optional>
#include <string>

#include "app/ports/idempotency_store.h"
#include "fakes/fake_database.h"

namespace docgate {

// IdempotencyStore on a FakeDatabase, shared with the database's other fakes. Each call is a
// write like any other: it waits for the writer slot. Thread-safe.
class FakeIdempotencyStore final : public IdempotencyStore {
 public:
  explicit FakeIdempotencyStore(std::shared_ptr<FakeDatabase> database);

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
  std::shared_ptr<FakeDatabase> database_;
};

// The idempotency keys' part of a transition (StoreTransaction::CompleteIdempotentRequest), on the
// transaction's copy of the tables: StorageError unless `owner` still holds the key in flight.
class FakeIdempotencyWriter {
 public:
  explicit FakeIdempotencyWriter(FakeTransaction& tx) : tx_(tx) {}

  void Complete(const std::string& caller, const std::string& key, const std::string& owner,
                const std::string& response, TimePoint expires_at);

 private:
  FakeTransaction& tx_;
};

}  // namespace docgate
