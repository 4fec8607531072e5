#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "adapters/prometheus/metrics_registry.h"
#include "app/ports/lock_gate.h"

namespace docgate {

// A LockGate that forwards every call to `inner` and records in `registry` what it answered:
//   docgate_gate_acquire_total{outcome="acquired|busy|backend_error"}
//   docgate_gate_acquire_duration_seconds           histogram of Acquire's latency, every outcome
//   docgate_gate_degraded_passthrough_total         acquisitions answered backend_error: by
//       lock_gate.h's contract the caller then proceeds under the database's row locks without the
//       gate (DocumentService::Gated does, always), so each is one request let through degraded
//   docgate_gate_release_total{outcome="released|not_owner|backend_error"}
//   docgate_gate_lost_leases_total                  leases that stopped being the holder's before
//       it released them: `lost_leases()` when given (RedisLockGate::lost_leases, which also sees
//       what its renewer found), else the releases answered not_owner (an in-process lease whose
//       TTL ran out first; never for the disabled gate)
// Every label value is pre-created, so each call costs two relaxed atomic adds and no lock beyond
// `inner`'s. Same thread-safety and no-throw guarantee as `inner`. `inner` and `registry` must
// outlive it, and the registry must not be scraped once it is gone.
class ObservedLockGate final : public LockGate {
 public:
  ObservedLockGate(LockGate& inner, MetricsRegistry& registry,
                   std::function<std::uint64_t()> lost_leases = {});

  Acquisition Acquire(const std::string& key, std::chrono::milliseconds ttl) override;
  ReleaseOutcome Release(const std::string& key, const std::string& token) override;

 private:
  LockGate& inner_;
  Counter* acquired_ = nullptr;
  Counter* busy_ = nullptr;
  Counter* acquire_failed_ = nullptr;
  Counter* degraded_ = nullptr;
  Histogram* acquire_seconds_ = nullptr;
  Counter* released_ = nullptr;
  Counter* not_owner_ = nullptr;
  Counter* release_failed_ = nullptr;
};

}  // namespace docgate
