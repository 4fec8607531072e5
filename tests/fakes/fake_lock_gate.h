#pragma once

#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "adapters/in_process/in_process_lock_gate.h"
#include "app/ports/lock_gate.h"

namespace docgate {

// The in-process gate's semantics plus what a test needs at the seam: a switch that makes the
// backend fail (as a dead Redis would) and a log of every call.
class FakeLockGate final : public LockGate {
 public:
  FakeLockGate(Clock& clock, RandomSource& random) : real_(clock, random) {}

  Acquisition Acquire(const std::string& key, std::chrono::milliseconds ttl) override {
    std::lock_guard lock(mutex_);
    acquired_keys_.push_back(key);
    if (backend_down_) return Acquisition{AcquireOutcome::kBackendFailed, {}, {}};
    return real_.Acquire(key, ttl);
  }
  ReleaseOutcome Release(const std::string& key, const std::string& token) override {
    std::lock_guard lock(mutex_);
    released_keys_.push_back(key);
    if (backend_down_) return ReleaseOutcome::kBackendFailed;
    return real_.Release(key, token);
  }

  void SetBackendDown(bool down) {
    std::lock_guard lock(mutex_);
    backend_down_ = down;
  }
  InProcessLockGate& real() { return real_; }
  std::vector<std::string> acquired_keys() {
    std::lock_guard lock(mutex_);
    return acquired_keys_;
  }
  std::vector<std::string> released_keys() {
    std::lock_guard lock(mutex_);
    return released_keys_;
  }

 private:
  InProcessLockGate real_;
  std::mutex mutex_;
  bool backend_down_ = false;
  std::vector<std::string> acquired_keys_;
  std::vector<std::string> released_keys_;
};

}  // namespace docgate
