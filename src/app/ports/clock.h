#pragma once

#include <chrono>

#include "core/model.h"

namespace docgate {

// Wall-clock time for timestamps and lock TTLs. Injected so that tests move time by hand.
// Implementations are thread-safe.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint Now() = 0;
};

}  // namespace docgate
