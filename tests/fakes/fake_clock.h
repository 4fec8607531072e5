#pragma once

#include <atomic>
#include <chrono>

#include "app/ports/clock.h"

namespace docgate {

// A clock that moves only when told to. Thread-safe.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(TimePoint start = TimePoint{std::chrono::milliseconds{1'798'000'000'000}})
      : now_ms_(start.time_since_epoch().count()) {}
  TimePoint Now() override { return TimePoint{std::chrono::milliseconds{now_ms_.load()}}; }
  void Advance(std::chrono::milliseconds by) { now_ms_ += by.count(); }

 private:
  std::atomic<std::int64_t> now_ms_;
};

}  // namespace docgate
