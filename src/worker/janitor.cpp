#include "worker/janitor.h"

#include <spdlog/spdlog.h>

#include <exception>

#include "worker/stoppable_sleep.h"

namespace docgate {

Janitor::Janitor(IdempotencyService& idempotency, JanitorConfig config)
    : idempotency_(idempotency), config_(config) {}

int Janitor::RunOnce() { return idempotency_.PruneExpired(); }

void Janitor::Run(std::stop_token stop) {
  while (!stop.stop_requested()) {
    try {
      if (const int pruned = RunOnce(); pruned > 0) {
        spdlog::info("janitor: pruned {} expired idempotency key(s)", pruned);
      }
    } catch (const std::exception& e) {
      spdlog::warn("janitor: pruning idempotency keys failed, next round in {} ms: {}",
                   config_.interval.count(), e.what());
    }
    SleepUnlessStopped(stop, config_.interval);
  }
}

}  // namespace docgate
