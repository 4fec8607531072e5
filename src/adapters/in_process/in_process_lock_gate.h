#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "app/ports/clock.h"
#include "app/ports/lock_gate.h"
#include "app/ports/random_source.h"

namespace docgate {

// The LockGate kept in this process, for the single-instance default (no DOCGATE_REDIS_URL).
// Same semantics as the Redis gate: prefixed keys, random 128-bit tokens, TTL expiry measured on
// the injected clock, owner-checked release, remaining TTL reported when busy. It never fails.
// Expired keys are dropped lazily when touched and swept every few hundred acquisitions, so the
// map stays bounded by the keys live within one TTL. Thread-safe.
class InProcessLockGate final : public LockGate {
 public:
  InProcessLockGate(Clock& clock, RandomSource& random, std::string key_prefix = "lock:");

  Acquisition Acquire(const std::string& key, std::chrono::milliseconds ttl) override;
  ReleaseOutcome Release(const std::string& key, const std::string& token) override;

  // Diagnostics and tests: the remaining TTL of a live key (given without the prefix).
  std::optional<std::chrono::milliseconds> RemainingTtl(const std::string& key);
  std::size_t LiveKeys();

 private:
  struct Entry {
    std::string token;
    TimePoint expires_at;
  };
  void SweepExpired(TimePoint now);

  Clock& clock_;
  RandomSource& random_;
  const std::string prefix_;
  std::mutex mutex_;
  std::unordered_map<std::string, Entry> entries_;
  unsigned acquisitions_since_sweep_ = 0;
};

}  // namespace docgate
