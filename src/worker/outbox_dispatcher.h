#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stop_token>

#include "app/clock.h"
#include "app/document_store.h"
#include "app/events.h"

namespace docgate {

struct DispatcherConfig {
  int batch_size = 100;
  std::chrono::milliseconds idle_poll{1000};     // safety net if a wake-up is missed
  std::chrono::milliseconds initial_backoff{100};
  std::chrono::milliseconds max_backoff{10000};
};

// Drains the outbox into an EventSink in commit order. An event is marked delivered only after the
// sink accepted it; a failing event stops the round (later events wait behind it, so per-document
// order holds) and is retried with exponential backoff. Undelivered rows left by a crash are simply
// pending rows, picked up by the first round after start. Delivery is therefore at least once.
//
// Wake() may be called from any thread; RunOnce/Run from one thread at a time.
class OutboxDispatcher final : public OutboxWakeup {
 public:
  OutboxDispatcher(OutboxStore& outbox, EventSink& sink, Clock& clock, DispatcherConfig config = {});

  void Wake() override;

  // Delivers pending events until none are left; returns how many were delivered. Throws what the
  // store or the sink throws, after marking the events delivered before the failure.
  int RunOnce();

  // Loops RunOnce until `stop` is requested, sleeping until Wake() or idle_poll between rounds and
  // backing off after a failure. Failures are logged and counted, never propagated. On the way
  // out it releases the store's claims so that undelivered events wait for nobody.
  void Run(std::stop_token stop);

  std::uint64_t failures() const;

 private:
  // Waits up to `timeout` for a Wake() or a stop request.
  void WaitForWake(std::stop_token& stop, std::chrono::milliseconds timeout);

  OutboxStore& outbox_;
  EventSink& sink_;
  Clock& clock_;
  const DispatcherConfig config_;
  mutable std::mutex mutex_;
  std::condition_variable_any wake_;
  bool woken_ = false;
  std::uint64_t failures_ = 0;
};

}  // namespace docgate
