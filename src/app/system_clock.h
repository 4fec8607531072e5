#pragma once

#include <chrono>

#include "app/ports/clock.h"

namespace docgate {

// The Clock of a running docgate: the system's wall clock, to the millisecond.
class SystemClock final : public Clock {
 public:
  TimePoint Now() override {
    return std::chrono::time_point_cast<std::chrono::milliseconds>(
        std::chrono::system_clock::now());
  }
};

}  // namespace docgate
