#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "app/ports/clock.h"
#include "app/ports/event_consumer.h"
#include "app/ports/inbox_consumer.h"
#include "app/ports/inbox_store.h"

namespace docgate {

// What consumers of document.approved work from: `found` (the event's document read with the
// content of the event's version) when that version is the document's approved one, nullopt
// when the document is gone or another version is approved (a stale event: nothing to do).
// Throws StorageError when the approved version has no content (an approved version's content is
// never deleted).
std::optional<DocumentWithContent> ApprovedByEvent(std::optional<DocumentWithContent> found,
                                                   const OutboxEvent& event);

struct ConsumerRunnerConfig {
  int max_attempts = 5;  // failed attempts before an event is parked for a consumer
};

// Why `config` cannot be used, in one line naming DOCGATE_CONSUMER_MAX_ATTEMPTS, or nullopt when
// it can: max_attempts 1..1000.
std::optional<std::string> ValidateConsumerRunnerConfig(const ConsumerRunnerConfig& config);

enum class ConsumeOutcome {
  kDone,    // every consumer has processed the event (now or before) or parked it
  kFailed,  // some consumer failed and will be retried: deliver the event again later
};

struct ConsumeResult {
  ConsumeOutcome outcome = ConsumeOutcome::kDone;
  int attempts = 0;     // the highest failed-attempt count among the consumers that failed
  bool parked = false;  // some consumer parked the event just now
  std::string error;    // "<consumer>: <what>" of the last failure, empty when none failed
};

// What the runner's consumers did, per (consumer, event) pair; read from any thread.
struct ConsumerCounters {
  std::atomic<std::uint64_t> processed{0};  // the consumer's effect committed
  std::atomic<std::uint64_t> skipped{0};    // already done or parked: a redelivery, nothing done
  std::atomic<std::uint64_t> failed{0};     // the consumer threw; the attempt was counted
  std::atomic<std::uint64_t> parked{0};     // ... and that attempt reached the limit
};

// Runs every registered InboxConsumer on an event (or a batch of them, RunBatch), each consumer in
// its own ConsumerTransaction behind the inbox, so the same event delivered any number of times,
// in process or from a queue, by any number of processes, has each consumer's effect once.
// Register all consumers before use; then thread-safe (each call uses its own transactions).
//
// It is also an EventConsumer for the in-process EventSink: Handle throws when the event must be
// delivered again, so the relay defers it with backoff.
class ConsumerRunner final : public EventConsumer {
 public:
  ConsumerRunner(InboxStore& store, Clock& clock, ConsumerRunnerConfig config = {});

  // `consumer` must outlive the runner.
  void Register(InboxConsumer& consumer);
  // A consumer that throws has the attempt counted (InboxStore::RecordFailure) and is parked at
  // max_attempts, or at its first attempt when it throws PermanentConsumerError;
  // StorageUnavailable, from the inbox or a consumer's backend, is not the event's fault: it
  // propagates uncounted and the caller delivers the event again later.
  ConsumeResult Run(const OutboxEvent& event);
  // Run on a batch of events (those a worker took from its queue together), with one result per
  // event, in order. Each consumer claims and handles the whole batch in one transaction, in
  // event_id order (two batches holding the same event claim alike instead of deadlocking), so a
  // batch costs each consumer one commit instead of one per event. When a consumer throws on any
  // event of it, that consumer's transaction rolls back and it runs on the events one at a time,
  // exactly as Run: the failing event's Handle then runs twice for this delivery and its attempt
  // is counted once. Throws StorageUnavailable like Run: deliver the whole batch again.
  std::vector<ConsumeResult> RunBatch(std::span<const OutboxEvent> events);

  std::string_view Name() const override { return "consumers"; }
  void Handle(const OutboxEvent& event) override;

  const ConsumerCounters& counters() const { return counters_; }

 private:
  // `consumer` on every event of `events` in one transaction; false (nothing committed, nothing
  // counted) when it threw anything but StorageUnavailable.
  bool RunTogether(InboxConsumer& consumer, std::span<const OutboxEvent> events);
  // `consumer` on `event` in its own transaction, its failure counted, into `result`.
  void RunAlone(InboxConsumer& consumer, const OutboxEvent& event, ConsumeResult& result);

  InboxStore& store_;
  Clock& clock_;
  ConsumerRunnerConfig config_;
  std::vector<InboxConsumer*> consumers_;
  ConsumerCounters counters_;
};

}  // namespace docgate
