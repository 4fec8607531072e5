#include "worker/outbox_relay.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <vector>

#include "core/config_check.h"
#include "worker/prune_in_batches.h"

namespace docgate {
namespace {

// Renewed every third of it; shorter, a database hiccup of a few hundred milliseconds would let
// another instance take a batch over while it is being delivered.
constexpr std::chrono::milliseconds kMinClaimTtl{1000};

// Why an event was deferred, kept in kh_outbox.last_error for the operator.
const char* Reason(DeliveryOutcome outcome) {
  switch (outcome) {
    case DeliveryOutcome::kReturned:
      return "unroutable: the broker returned it (no queue is bound for its routing key)";
    case DeliveryOutcome::kNacked:
      return "refused: the broker nacked it";
    case DeliveryOutcome::kFailed:
    case DeliveryOutcome::kDelivered:
      break;
  }
  return "a consumer failed on it";
}

}  // namespace

std::optional<std::string> ValidateRelayConfig(const RelayConfig& config) {
  const std::string short_claim_ttl = "DOCGATE_OUTBOX_CLAIM_TTL_MS must be at least " +
                                      std::to_string(kMinClaimTtl.count()) + ", got " +
                                      std::to_string(config.claim_ttl.count());
  return ConfigCheck()
      .Range("DOCGATE_OUTBOX_BATCH_SIZE", config.batch_size, 1, 10000)
      .Positive("DOCGATE_OUTBOX_POLL_MS", config.idle_poll)
      .Positive("the relay initial backoff", config.initial_backoff)
      .Require(config.max_backoff >= config.initial_backoff,
               "the relay max backoff must be at least its initial backoff")
      .Positive("the relay retry delay", config.retry_delay)
      .Require(config.max_retry_delay >= config.retry_delay,
               "DOCGATE_OUTBOX_RETRY_MAX_MS must be at least " +
                   std::to_string(config.retry_delay.count()))
      .Range<std::int64_t>("DOCGATE_OUTBOX_RETENTION_HOURS", config.retention.count(), 1,
                           24 * 365 * 10)
      .Range("the outbox prune batch", config.prune_batch, 1, 100000)
      .Require(config.claim_ttl >= kMinClaimTtl, short_claim_ttl)
      .Positive("the outbox prune interval", config.prune_interval)
      .Problem();
}

OutboxRelay::OutboxRelay(OutboxStore& outbox, EventSink& sink, Clock& clock, RelayConfig config)
    : outbox_(outbox),
      sink_(sink),
      clock_(clock),
      config_(config),
      renewer_([this](std::stop_token stop) { RenewWhileInFlight(stop); }) {}

OutboxRelay::~OutboxRelay() = default;

void OutboxRelay::Wake() {
  {
    std::lock_guard lock(mutex_);
    woken_ = true;
  }
  wake_.notify_one();
}

int OutboxRelay::RunOnce() {
  int delivered = 0;
  for (;;) {
    const auto batch = outbox_.ClaimPending(config_.batch_size);
    if (batch.empty()) return delivered;
    const auto outcomes = DeliverRenewingClaims(batch);
    if (outcomes.size() != batch.size()) {
      throw std::logic_error("event sink answered " + std::to_string(outcomes.size()) +
                             " outcomes for " + std::to_string(batch.size()) + " events");
    }
    std::vector<std::int64_t> done;
    // Deferred per outcome, so that each row records why.
    std::vector<std::int64_t> returned, nacked, failed;
    for (std::size_t i = 0; i < batch.size(); ++i) {
      const std::int64_t sequence = batch[i].sequence;
      switch (outcomes[i]) {
        case DeliveryOutcome::kDelivered: done.push_back(sequence); break;
        case DeliveryOutcome::kReturned: returned.push_back(sequence); break;
        case DeliveryOutcome::kNacked: nacked.push_back(sequence); break;
        case DeliveryOutcome::kFailed: failed.push_back(sequence); break;
      }
    }
    outbox_.MarkDelivered(done, clock_.Now());
    for (const auto& [sequences, outcome, counter] :
         {std::tuple{&returned, DeliveryOutcome::kReturned, &counters_.returned},
          std::tuple{&nacked, DeliveryOutcome::kNacked, &counters_.nacked},
          std::tuple{&failed, DeliveryOutcome::kFailed, &counters_.failed}}) {
      if (sequences->empty()) continue;
      outbox_.Defer(*sequences, config_.retry_delay, config_.max_retry_delay, Reason(outcome));
      *counter += sequences->size();
      spdlog::warn("outbox relay: {} event(s) not delivered, retrying later: {}",
                   sequences->size(), Reason(outcome));
    }
    counters_.delivered += done.size();
    delivered += static_cast<int>(done.size());
    // A delivered head may have made its document's next event claimable: go on until a round
    // delivers nothing (everything deferred means nothing more is due now).
    if (done.empty()) return delivered;
  }
}

std::vector<DeliveryOutcome> OutboxRelay::DeliverRenewingClaims(
    const std::vector<OutboxEvent>& batch) {
  {
    std::lock_guard lock(renew_mutex_);
    in_flight_ = batch.size();
    ++batches_;
  }
  renew_wake_.notify_one();
  // Landed however Deliver ends: a batch that threw is claimed again by the next round, or its
  // claims run out.
  struct Landing {
    OutboxRelay& relay;
    ~Landing() {
      {
        std::lock_guard lock(relay.renew_mutex_);
        relay.in_flight_ = 0;
      }
      relay.renew_wake_.notify_one();
    }
  } landing{*this};
  return sink_.Deliver(batch);
}

void OutboxRelay::RenewWhileInFlight(std::stop_token stop) {
  const auto interval = std::max(config_.claim_ttl / 3, std::chrono::milliseconds(1));
  std::unique_lock lock(renew_mutex_);
  while (renew_wake_.wait(lock, stop, [this] { return in_flight_ > 0; })) {
    const std::uint64_t batch = batches_;
    const auto landed = [&] { return in_flight_ == 0 || batches_ != batch; };
    // Most batches land long before their first renewal is due, and cost no statement.
    while (!renew_wake_.wait_for(lock, stop, interval, landed) && !stop.stop_requested()) {
      const std::size_t held = in_flight_;
      lock.unlock();
      const std::size_t still_held = Renew(held);
      lock.lock();
      if (!landed()) in_flight_ = still_held;
    }
  }
}

std::size_t OutboxRelay::Renew(std::size_t held) {
  try {
    const auto renewed = static_cast<std::size_t>(std::max(outbox_.RenewClaims(), 0));
    ++counters_.renewals;
    if (renewed >= held) return held;
    counters_.claims_lost += held - renewed;
    spdlog::warn(
        "outbox relay: another instance took over {} of the {} event(s) being delivered after "
        "this instance's claims ran out; they may be delivered twice, with the same event_id",
        held - renewed, held);
    return renewed;
  } catch (const std::exception& e) {
    ++counters_.renewal_errors;
    spdlog::warn(
        "outbox relay: could not renew the claims of the {} event(s) being delivered: {}; unless "
        "a renewal gets through within {} ms of the last one, another instance may deliver them "
        "too",
        held, e.what(), config_.claim_ttl.count());
    return held;
  }
}

int OutboxRelay::Prune() {
  const TimePoint cutoff = clock_.Now() - config_.retention;
  const int pruned = PruneInBatches(
      config_.prune_batch, [&](int batch) { return outbox_.PruneDelivered(cutoff, batch); });
  counters_.pruned += static_cast<std::uint64_t>(pruned);
  return pruned;
}

void OutboxRelay::Run(std::stop_token stop) {
  auto backoff = config_.initial_backoff;
  TimePoint next_prune = clock_.Now();
  while (!stop.stop_requested()) {
    try {
      RunOnce();
      backoff = config_.initial_backoff;
      if (clock_.Now() >= next_prune) {
        next_prune = clock_.Now() + config_.prune_interval;
        if (const int pruned = Prune(); pruned > 0) {
          spdlog::info("outbox relay: pruned {} delivered event(s)", pruned);
        }
      }
      sink_.Maintain();
      WaitForWake(stop, config_.idle_poll);
    } catch (const std::exception& e) {
      ++counters_.errors;
      spdlog::warn("outbox relay: delivery failed, retrying in {} ms: {}", backoff.count(),
                   e.what());
      // Commits keep calling Wake() meanwhile; they must not turn the backoff into a busy loop.
      Sleep(stop, backoff);
      backoff = std::min(backoff * 2, config_.max_backoff);
    }
  }
  try {
    outbox_.ReleaseClaims();
  } catch (const std::exception& e) {
    spdlog::warn("outbox relay: could not release claims, they expire by themselves: {}",
                 e.what());
  }
}

void OutboxRelay::Sleep(std::stop_token& stop, std::chrono::milliseconds duration) {
  std::unique_lock lock(mutex_);
  wake_.wait_for(lock, stop, duration, [] { return false; });
}

void OutboxRelay::WaitForWake(std::stop_token& stop, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  wake_.wait_for(lock, stop, timeout, [this] { return woken_; });
  woken_ = false;
}

}  // namespace docgate
