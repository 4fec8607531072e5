#pragma once

#include <chrono>
#include <optional>

#include "core/model.h"

namespace docgate {

// When a webhook delivery that failed is tried again (ADR 0017, point 3).
struct RetryPolicy {
  std::chrono::milliseconds first_delay{10'000};        // after the first failed attempt
  std::chrono::milliseconds max_delay{3'600'000};       // the doubling stops here
  std::chrono::milliseconds give_up_after{86'400'000};  // from the event: then `failed`
};

// The time of the next attempt after `attempts` failed ones (1 after the first), or nullopt when
// the delivery has failed for good. The delay doubles from first_delay up to max_delay, and is
// jittered by `unit_random` (in [0, 1)) between half of it and all of it, so that receivers coming
// back from an outage are not hit by every delivery at once while each delivery still waits at
// least half its step. A receiver's Retry-After longer than that is waited instead. No attempt is
// scheduled after `event_at + give_up_after`: the last one is made at that moment, and after it
// (`now` past it) the answer is nullopt.
std::optional<TimePoint> NextAttemptAt(const RetryPolicy& policy, TimePoint event_at, TimePoint now,
                                       int attempts,
                                       std::optional<std::chrono::milliseconds> retry_after,
                                       double unit_random);

}  // namespace docgate
