#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "app/ports/clock.h"
#include "app/ports/event_sink.h"
#include "app/ports/outbox_store.h"
#include "app/ports/outbox_wakeup.h"

namespace docgate {

struct RelayConfig {
  int batch_size = 100;  // DOCGATE_OUTBOX_BATCH_SIZE: events per claim, and per confirm batch
  // Safety net if a wake-up is missed (DOCGATE_OUTBOX_POLL_MS); also how often an idle relay lets
  // the sink keep its connection alive and retries deferred events that came due.
  std::chrono::milliseconds idle_poll{1000};
  // After the sink or the store threw (broker or database unreachable): wait initial_backoff,
  // doubling up to max_backoff, then try again.
  std::chrono::milliseconds initial_backoff{100};
  std::chrono::milliseconds max_backoff{10000};
  // An event the broker returned or refused, or a consumer failed on, is retried after retry_delay
  // doubling per attempt up to max_retry_delay (DOCGATE_OUTBOX_RETRY_MAX_MS); its document's later
  // events wait behind it.
  std::chrono::milliseconds retry_delay{1000};
  std::chrono::milliseconds max_retry_delay{60000};
  // Delivered events are deleted once older than `retention` (DOCGATE_OUTBOX_RETENTION_HOURS),
  // prune_batch rows per statement, checked every prune_interval.
  std::chrono::hours retention{24 * 7};
  int prune_batch = 1000;
  std::chrono::milliseconds prune_interval{60000};
  // How long a claim on outbox rows holds (DOCGATE_OUTBOX_CLAIM_TTL_MS), applied by the store.
  // While the sink has a batch, the relay renews its claims every claim_ttl / 3, so a live relay
  // keeps its batch however long the broker takes to confirm, and the rows a killed instance had
  // claimed are taken over by another instance (or a restarted one) at most claim_ttl after its
  // last renewal.
  std::chrono::milliseconds claim_ttl{3000};
};

// Why `config` cannot be used, in one line (naming the DOCGATE_OUTBOX_* variable where there is
// one), or nullopt when it can: batch_size 1..10000; positive idle_poll, initial_backoff,
// retry_delay and prune_interval; max_backoff and max_retry_delay at least their initial values;
// retention of 1 hour..10 years; prune_batch 1..100000; claim_ttl at least 1 s.
std::optional<std::string> ValidateRelayConfig(const RelayConfig& config);

// What the relay has done since it started; read from any thread.
struct RelayCounters {
  std::atomic<std::uint64_t> delivered{0};
  std::atomic<std::uint64_t> returned{0};  // unroutable: basic.return
  std::atomic<std::uint64_t> nacked{0};    // refused: basic.nack
  std::atomic<std::uint64_t> failed{0};    // a consumer failed
  std::atomic<std::uint64_t> errors{0};    // rounds that threw: sink or store unreachable
  std::atomic<std::uint64_t> pruned{0};
  std::atomic<std::uint64_t> renewals{0};        // claim renewals while a batch was in flight
  std::atomic<std::uint64_t> renewal_errors{0};  // renewals that threw: store unreachable
  // Events of a batch in flight that another instance claimed after this one's claim ran out
  // (renewals failed for a whole claim TTL): they may be delivered twice, with one event_id.
  std::atomic<std::uint64_t> claims_lost{0};
};

// Moves the outbox to an EventSink. Each round claims a batch of head events (per document the
// oldest undelivered one: see OutboxStore), hands the whole batch to the sink, marks delivered what
// the sink confirmed and defers the rest with backoff, and repeats while a round delivered
// something. An event is marked delivered only after the sink confirmed it, so a crash at any point
// leaves it pending and it is delivered again (same event_id): at least once, never lost. Per
// document, events leave in transition order, because a document's next event is claimable only
// after the one before it was delivered.
//
// Claims are short leases: while the sink holds a batch longer than claim_ttl / 3, a thread of the
// relay renews them (OutboxStore::RenewClaims) every claim_ttl / 3, so no other instance takes a
// batch a live relay is delivering. A renewal that throws is logged, counted and retried at the
// next tick; if none gets through for a whole claim TTL, another instance may claim the batch and
// deliver it too (consumers dedupe by event_id), which the next successful renewal reports as
// claims_lost. The sink has by then published every event of the batch (only the confirms are
// awaited), so there is nothing left to hold back; the relay then marks delivered what the sink
// confirmed and defers only rows it still claims.
//
// Wake() may be called from any thread; RunOnce/Run from one thread at a time.
class OutboxRelay final : public OutboxWakeup {
 public:
  OutboxRelay(OutboxStore& outbox, EventSink& sink, Clock& clock, RelayConfig config = {});
  ~OutboxRelay() override;

  void Wake() override;

  // Relays until a round delivers nothing; returns how many events were delivered. Throws what
  // the store or the sink throws; the batch being delivered then stays claimed by this instance
  // and is delivered again by the next round.
  int RunOnce();

  // Deletes delivered events older than the retention, in batches of prune_batch, until none is
  // left; returns how many. Throws what the store throws.
  int Prune();

  // Loops RunOnce until `stop` is requested, sleeping until Wake() or idle_poll between rounds,
  // pruning every prune_interval, calling the sink's Maintain between rounds, and backing off
  // after a failure (wake-ups do not cut a backoff short). Failures are logged and counted, never
  // propagated. On the way out it releases the store's claims so that undelivered events wait for
  // nobody.
  void Run(std::stop_token stop);

  const RelayCounters& counters() const { return counters_; }

 private:
  // Waits up to `timeout` for a Wake() or a stop request.
  void WaitForWake(std::stop_token& stop, std::chrono::milliseconds timeout);
  // Waits `duration` or until a stop request; Wake() does not end it.
  void Sleep(std::stop_token& stop, std::chrono::milliseconds duration);
  // sink_.Deliver, with the batch's claims renewed while it runs.
  std::vector<DeliveryOutcome> DeliverRenewingClaims(const std::vector<OutboxEvent>& batch);
  // The renewing thread: idle until a batch is in flight, then renews every claim_ttl / 3 until
  // the batch lands.
  void RenewWhileInFlight(std::stop_token stop);
  // One renewal of `held` claims; returns how many the store still found this instance's.
  std::size_t Renew(std::size_t held);

  OutboxStore& outbox_;
  EventSink& sink_;
  Clock& clock_;
  const RelayConfig config_;
  RelayCounters counters_;
  std::mutex mutex_;
  std::condition_variable_any wake_;
  bool woken_ = false;
  std::mutex renew_mutex_;
  std::condition_variable_any renew_wake_;
  std::size_t in_flight_ = 0;  // events of the batch the sink holds; 0: none (renew_mutex_)
  std::uint64_t batches_ = 0;  // batches handed to the sink so far (renew_mutex_)
  std::jthread renewer_;       // last: started after, and joined before, everything it uses
};

}  // namespace docgate
