#pragma once

#include "app/ports/lock_gate.h"

namespace docgate {

// The gate switched off (DOCGATE_LOCK_GATE=off): every acquire succeeds at once and nothing is
// held, so only the database's row locks decide. For operators who want no outer gate and for
// the tests that prove the row locks alone are enough. Thread-safe (stateless).
class DisabledLockGate final : public LockGate {
 public:
  Acquisition Acquire(const std::string&, std::chrono::milliseconds) override {
    return Acquisition{AcquireOutcome::kAcquired, {}, {}};
  }
  ReleaseOutcome Release(const std::string&, const std::string&) override {
    return ReleaseOutcome::kReleased;
  }
};

}  // namespace docgate
