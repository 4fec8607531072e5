#include "app/delivery_schedule.h"

#include <algorithm>

namespace docgate {

std::optional<TimePoint> NextAttemptAt(const RetryPolicy& policy, TimePoint event_at, TimePoint now,
                                       int attempts,
                                       std::optional<std::chrono::milliseconds> retry_after,
                                       double unit_random) {
  const TimePoint deadline = event_at + policy.give_up_after;
  if (now >= deadline) return std::nullopt;
  std::chrono::milliseconds step = policy.first_delay;
  for (int i = 1; i < attempts && step < policy.max_delay; ++i) step *= 2;
  step = std::min(step, policy.max_delay);
  const double jitter = std::clamp(unit_random, 0.0, 1.0);
  auto delay = std::chrono::milliseconds(
      step.count() / 2 + static_cast<std::int64_t>(static_cast<double>(step.count() / 2) * jitter));
  if (retry_after && *retry_after > delay) delay = *retry_after;
  return std::min(now + delay, deadline);
}

}  // namespace docgate
