#pragma once

#include <chrono>
#include <string>

namespace docgate {

enum class AcquireOutcome {
  kAcquired,       // the caller owns the key until it releases it or the TTL runs out
  kBusy,           // another owner holds the key; remaining_ttl says for how long at most
  kBackendFailed,  // the gate could not answer; the caller proceeds under the database locks
};

struct Acquisition {
  AcquireOutcome outcome = AcquireOutcome::kBackendFailed;
  std::string token;                          // set when acquired
  std::chrono::milliseconds remaining_ttl{};  // set when busy
};

enum class ReleaseOutcome {
  kReleased,       // the key was ours and is gone
  kNotOwner,       // the key expired or belongs to another owner; nothing was deleted
  kBackendFailed,  // the gate could not answer; the key expires by its TTL
};

// The outer gate: a TTL lock per key that turns duplicate requests into an immediate 409.
// Correctness never depends on it (the store's row locks decide); it exists to answer duplicates
// fast and keep them off the database.
//
// Contract (the Redis gate's semantics): Acquire is `SET key token NX PX ttl` with a fresh 128-bit
// random token; Release deletes the key only if it still holds that token. Keys are given without
// the gate's prefix ("doc:submit:42"); the gate prepends its configured prefix ("lock:").
// Neither call throws: backend trouble is an outcome. Implementations are thread-safe.
class LockGate {
 public:
  virtual ~LockGate() = default;
  virtual Acquisition Acquire(const std::string& key, std::chrono::milliseconds ttl) = 0;
  virtual ReleaseOutcome Release(const std::string& key, const std::string& token) = 0;
};

}  // namespace docgate
