#pragma once

#include <algorithm>
#include <chrono>
#include <mutex>

namespace docgate {

// Keeps calls away from a backend that just failed. Closed: every call goes through. After a
// failure it opens for `initial`; once that has passed, exactly one caller is let through as a
// probe while the others are still refused. A successful probe closes it (and resets the
// interval); a failed one opens it again for twice as long, at most `max`. Failures reported
// while already open do not lengthen it (concurrent calls failing together count once).
// Time is passed in, so tests drive it without sleeping. Thread-safe.
class CircuitBreaker {
 public:
  using Clock = std::chrono::steady_clock;

  CircuitBreaker(std::chrono::milliseconds initial, std::chrono::milliseconds max)
      : initial_(initial), max_(std::max(max, initial)), interval_(initial) {}

  // True when the caller may try the backend; it must then report Succeeded() or Failed().
  bool Allow(Clock::time_point now) {
    std::lock_guard lock(mutex_);
    if (!open_) return true;
    if (probing_ || now < open_until_) return false;
    probing_ = true;
    return true;
  }

  // Returns true when this closed an open breaker.
  bool Succeeded() {
    std::lock_guard lock(mutex_);
    const bool was_open = open_;
    open_ = false;
    probing_ = false;
    interval_ = initial_;
    return was_open;
  }

  // Returns true when this opened a closed breaker.
  bool Failed(Clock::time_point now) {
    std::lock_guard lock(mutex_);
    const bool was_open = open_;
    if (open_ && !probing_) return false;
    open_ = true;
    probing_ = false;
    open_until_ = now + interval_;
    interval_ = std::min(interval_ * 2, max_);
    return !was_open;
  }

  bool closed() const {
    std::lock_guard lock(mutex_);
    return !open_;
  }

 private:
  const std::chrono::milliseconds initial_;
  const std::chrono::milliseconds max_;
  mutable std::mutex mutex_;
  bool open_ = false;
  bool probing_ = false;
  Clock::time_point open_until_{};
  std::chrono::milliseconds interval_;
};

}  // namespace docgate
