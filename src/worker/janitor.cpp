#include "worker/janitor.h"

#include <spdlog/spdlog.h>

#include <exception>

#include "core/config_check.h"
#include "worker/prune_in_batches.h"
#include "worker/stoppable_sleep.h"

namespace docgate {

std::optional<std::string> ValidateJanitorConfig(const JanitorConfig& config) {
  return ConfigCheck()
      .Positive("the janitor interval", config.interval)
      .Range<std::int64_t>("DOCGATE_INBOX_RETENTION_HOURS", config.inbox_retention.count(), 1,
                           24 * 365 * 10)
      .Range("the inbox prune batch", config.inbox_prune_batch, 1, 100000)
      .Problem();
}

Janitor::Janitor(IdempotencyService& idempotency, InboxStore& inbox, Clock& clock,
                 JanitorConfig config)
    : idempotency_(idempotency), inbox_(inbox), clock_(clock), config_(config) {}

int Janitor::PruneIdempotencyKeys() { return idempotency_.PruneExpired(); }

int Janitor::PruneInbox() {
  const TimePoint cutoff = clock_.Now() - config_.inbox_retention;
  return PruneInBatches(config_.inbox_prune_batch, [&](int batch) {
    const int deleted = inbox_.PruneInbox(cutoff, batch);
    counters_.inbox_pruned += static_cast<std::uint64_t>(deleted);
    return deleted;
  });
}

int Janitor::RunOnce() { return PruneIdempotencyKeys() + PruneInbox(); }

void Janitor::Run(std::stop_token stop) {
  // Each kind of record is pruned whatever became of the other.
  const auto prune = [this](int (Janitor::*batches)(), const char* what) {
    try {
      if (const int pruned = (this->*batches)(); pruned > 0) {
        spdlog::info("janitor: pruned {} {}", pruned, what);
      }
    } catch (const std::exception& e) {
      spdlog::warn("janitor: pruning {} failed, next round in {} ms: {}", what,
                   config_.interval.count(), e.what());
    }
  };
  while (!stop.stop_requested()) {
    prune(&Janitor::PruneIdempotencyKeys, "expired idempotency key(s)");
    prune(&Janitor::PruneInbox, "done inbox row(s)");
    SleepUnlessStopped(stop, config_.interval);
  }
}

}  // namespace docgate
