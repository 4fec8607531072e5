#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>

#include "app/ports/clock.h"
#include "app/ports/outbox_store.h"
#include "app/ports/outbox_wakeup.h"

namespace docgate {

struct ReconcilerConfig {
  // An approval event delivered this long ago whose version is still not ingested is stuck
  // (DOCGATE_RECONCILE_STUCK_AFTER_MS): longer than a healthy ingestion with its retries takes.
  std::chrono::milliseconds stuck_after{300000};
  std::chrono::milliseconds interval{60000};  // between rounds (DOCGATE_RECONCILE_INTERVAL_MS)
  int batch_size = 100;                       // approvals re-enqueued per query
};

// Why `config` cannot be used, in one line naming the DOCGATE_RECONCILE_* variable, or nullopt
// when it can: positive interval and stuck_after, batch_size 1..10000.
std::optional<std::string> ValidateReconcilerConfig(const ReconcilerConfig& config);

// Finds approved versions whose ingestion is missing or stuck (OutboxStore::FindStuckIngestions)
// and puts their approval events back into the outbox, so the relay delivers them again with the
// same event_id: consumers that already processed one skip it (inbox), ingestion runs. Safe on
// several instances at once: a re-enqueued event is undelivered, hence no longer stuck.
class Reconciler {
 public:
  // `wakeup` (optional: the relay of this process) is told after a round re-enqueued something.
  Reconciler(OutboxStore& outbox, Clock& clock, OutboxWakeup* wakeup, ReconcilerConfig config = {});

  // Re-enqueues every stuck approval, batch_size at a time; returns how many. Throws what the
  // store throws.
  int RunOnce();
  // A round every interval (the first after one interval) until `stop` is requested. Failures
  // are logged and the next round tries again.
  void Run(std::stop_token stop);

  std::uint64_t requeued() const { return requeued_.load(); }

 private:
  OutboxStore& outbox_;
  Clock& clock_;
  OutboxWakeup* wakeup_;
  const ReconcilerConfig config_;
  std::atomic<std::uint64_t> requeued_{0};
};

}  // namespace docgate
