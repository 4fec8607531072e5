#pragma once

#include <optional>
#include <string>

#include "core/model.h"

namespace docgate {

// A stored Idempotency-Key: what a request found under (caller, key).
struct IdempotencyRecord {
  std::string fingerprint;              // of the request that reserved the key
  std::optional<std::string> response;  // the stored response; nullopt while in flight
  TimePoint expires_at{};               // in flight: the lease's end; completed: created + TTL
};

// Idempotency keys per (caller, key), on the same database as the effects they guard, so that a
// request's record can be completed in the effect's own transaction
// (StoreTransaction::CompleteIdempotentRequest). A record is live while expires_at > now; an
// expired one counts as absent. Each reservation is identified by an `owner` token (random, from
// the caller), so that a request whose lease ran out can no longer complete or release a record
// another request has taken over. Times are the caller's clock (all instances on one database
// should have synchronised clocks; a skew shifts lease and TTL ends by as much).
// Thread-safe; several processes on one database may use it concurrently. Throws like
// DocumentStore (StorageUnavailable, StorageError).
class IdempotencyStore {
 public:
  virtual ~IdempotencyStore() = default;
  // Atomically: when (caller, key) has no live record, writes an in-flight one (fingerprint,
  // owner, expires_at = lease_until) and returns nullopt: the caller may proceed. Otherwise returns
  // the live record unchanged. Of concurrent reservations of one key, exactly one gets nullopt.
  virtual std::optional<IdempotencyRecord> ReserveIdempotencyKey(
      const std::string& caller, const std::string& key, const std::string& fingerprint,
      const std::string& owner, TimePoint now, TimePoint lease_until) = 0;
  // Completes `owner`'s in-flight record with `response`, kept until `expires_at`, outside any
  // transaction (for outcomes without an effect). False when there is no such in-flight record.
  virtual bool CompleteIdempotentRequest(const std::string& caller, const std::string& key,
                                         const std::string& owner, const std::string& response,
                                         TimePoint expires_at) = 0;
  // Deletes `owner`'s record while it is in flight, so that a retry may proceed at once; a
  // completed record, or one another reservation holds, is never deleted.
  virtual void ReleaseIdempotencyKey(const std::string& caller, const std::string& key,
                                     const std::string& owner) = 0;
  // Deletes up to `limit` records with expires_at <= now (completed or in flight), and returns how
  // many.
  virtual int PruneIdempotencyKeys(TimePoint now, int limit) = 0;
};

}  // namespace docgate
