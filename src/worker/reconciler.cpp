#include "worker/reconciler.h"

#include <spdlog/spdlog.h>

#include <exception>

#include "core/config_check.h"
#include "worker/stoppable_sleep.h"

namespace docgate {

std::optional<std::string> ValidateReconcilerConfig(const ReconcilerConfig& config) {
  return ConfigCheck()
      .Positive("DOCGATE_RECONCILE_INTERVAL_MS", config.interval)
      .Positive("DOCGATE_RECONCILE_STUCK_AFTER_MS", config.stuck_after)
      .Range("the reconciler batch", config.batch_size, 1, 10000)
      .Problem();
}

Reconciler::Reconciler(OutboxStore& outbox, Clock& clock, OutboxWakeup* wakeup,
                       ReconcilerConfig config)
    : outbox_(outbox), clock_(clock), wakeup_(wakeup), config_(config) {}

int Reconciler::RunOnce() {
  int total = 0;
  const TimePoint delivered_before = clock_.Now() - config_.stuck_after;
  for (;;) {
    // Each re-enqueued event leaves the stuck set, so the next query returns the next batch.
    const auto stuck = outbox_.FindStuckIngestions(delivered_before, config_.batch_size);
    for (const OutboxEvent& event : stuck) {
      spdlog::warn("reconciler: ingestion of document {} version {} is stuck; re-enqueuing event {}",
                   event.document_id, event.version, event.event_id);
      outbox_.Requeue(event);
    }
    total += static_cast<int>(stuck.size());
    if (static_cast<int>(stuck.size()) < config_.batch_size) break;
  }
  requeued_ += static_cast<std::uint64_t>(total);
  if (total > 0 && wakeup_ != nullptr) wakeup_->Wake();
  return total;
}

void Reconciler::Run(std::stop_token stop) {
  while (SleepUnlessStopped(stop, config_.interval)) {
    try {
      RunOnce();
    } catch (const std::exception& e) {
      // The loop's boundary: the next round tries again.
      spdlog::warn("reconciler: {}", e.what());
    }
  }
}

}  // namespace docgate
