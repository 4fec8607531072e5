#include "adapters/prometheus/observed_lock_gate.h"

#include <utility>

namespace docgate {

ObservedLockGate::ObservedLockGate(LockGate& inner, MetricsRegistry& registry,
                                   std::function<std::uint64_t()> lost_leases)
    : inner_(inner) {
  auto& acquisitions = registry.AddCounterFamily(
      "docgate_gate_acquire_total",
      "Gate acquisitions by outcome: acquired, busy (answered 409 LOCK_BUSY) or backend_error "
      "(the gate could not answer).",
      {"outcome"});
  acquired_ = &acquisitions.WithLabels({"acquired"});
  busy_ = &acquisitions.WithLabels({"busy"});
  acquire_failed_ = &acquisitions.WithLabels({"backend_error"});
  degraded_ = &registry.AddCounter(
      "docgate_gate_degraded_passthrough_total",
      "Requests that went on without the gate, under the database's row locks alone, because the "
      "gate's backend failed.");
  acquire_seconds_ = &registry.AddHistogram("docgate_gate_acquire_duration_seconds",
                                            "Latency of gate acquisitions, every outcome.",
                                            LatencyBuckets());
  auto& releases = registry.AddCounterFamily(
      "docgate_gate_release_total",
      "Gate releases by outcome: released, not_owner (the lease had expired or was taken over) or "
      "backend_error (the key expires by its TTL).",
      {"outcome"});
  released_ = &releases.WithLabels({"released"});
  not_owner_ = &releases.WithLabels({"not_owner"});
  release_failed_ = &releases.WithLabels({"backend_error"});
  if (!lost_leases) lost_leases = [not_owner = not_owner_] { return not_owner->value(); };
  registry.AddCounterCallback("docgate_gate_lost_leases_total",
                              "Leases that stopped being their holder's before it released them.",
                              std::move(lost_leases));
}

Acquisition ObservedLockGate::Acquire(const std::string& key, std::chrono::milliseconds ttl) {
  const auto started = std::chrono::steady_clock::now();
  Acquisition acquisition = inner_.Acquire(key, ttl);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
  acquire_seconds_->Observe(took.count());
  switch (acquisition.outcome) {
    case AcquireOutcome::kAcquired:
      acquired_->Increment();
      break;
    case AcquireOutcome::kBusy:
      busy_->Increment();
      break;
    case AcquireOutcome::kBackendFailed:
      acquire_failed_->Increment();
      degraded_->Increment();
      break;
  }
  return acquisition;
}

ReleaseOutcome ObservedLockGate::Release(const std::string& key, const std::string& token) {
  const ReleaseOutcome outcome = inner_.Release(key, token);
  switch (outcome) {
    case ReleaseOutcome::kReleased:
      released_->Increment();
      break;
    case ReleaseOutcome::kNotOwner:
      not_owner_->Increment();
      break;
    case ReleaseOutcome::kBackendFailed:
      release_failed_->Increment();
      break;
  }
  return outcome;
}

}  // namespace docgate
