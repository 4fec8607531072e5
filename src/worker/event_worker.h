#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "app/consumer_runner.h"
#include "app/ports/event_source.h"

namespace docgate {

struct EventWorkerConfig {
  std::chrono::milliseconds receive_timeout{1000};  // one Receive's wait; also the stop latency
  // A message some consumer failed on goes back through the retry queue after retry_delay,
  // doubling per failed attempt up to max_retry_delay (DOCGATE_CONSUMER_RETRY_MAX_MS).
  std::chrono::milliseconds retry_delay{1000};
  std::chrono::milliseconds max_retry_delay{60000};
  // After the source or the database threw: wait initial_backoff, doubling up to max_backoff.
  std::chrono::milliseconds initial_backoff{100};
  std::chrono::milliseconds max_backoff{10000};
  // Messages taken and run together (ConsumerRunner::RunBatch: one transaction per consumer per
  // batch): whatever has arrived, up to this many (DOCGATE_CONSUMER_BATCH); never more than the
  // source's prefetch lets through. 1 runs each event on its own.
  int batch_size = 16;
};

// Why `config` cannot be used, in one line (naming DOCGATE_CONSUMER_RETRY_MAX_MS and
// DOCGATE_CONSUMER_BATCH for their bounds), or nullopt when it can: positive retry delay, receive
// timeout and initial backoff, max_retry_delay at least retry_delay, and batch_size 1..1000.
std::optional<std::string> ValidateEventWorkerConfig(const EventWorkerConfig& config);

// What the worker has done since it started; read from any thread.
struct EventWorkerCounters {
  std::atomic<std::uint64_t> processed{0};  // settled with an ack: every consumer done
  std::atomic<std::uint64_t> retried{0};    // sent back through the retry queue
  std::atomic<std::uint64_t> parked{0};     // moved to the parking queue (poison or malformed)
  std::atomic<std::uint64_t> errors{0};     // rounds that threw: broker or database unreachable
};

// `docgate worker`'s loop: takes events from an EventSource (RabbitMQ's durable consumers queue)
// and runs the consumers on each (ConsumerRunner: the inbox makes a redelivery change nothing),
// on as many as have arrived together, up to batch_size, in one RunBatch.
// Each message is settled after its consumers committed: ack when all are done, the retry queue
// with backoff when one failed, the parking queue when one gave up on it or the body is not a
// docgate event. A process killed in between leaves the message unacked, and the broker delivers
// it again. Not thread-safe: one thread runs it (several workers take turns on one queue).
class EventWorker {
 public:
  EventWorker(EventSource& source, ConsumerRunner& runner, EventWorkerConfig config = {});

  // Takes a batch (the first message waited for up to receive_timeout, then those already
  // there, up to batch_size) and settles each of its messages; false when none came.
  // Throws what the source or the store throws. Messages the store failed on (the database is
  // unreachable) are first handed back through the retry queue after retry_delay; those the
  // source failed on are left unsettled, and the broker delivers them again once the connection
  // is gone.
  bool RunOnce();
  // Loops RunOnce until `stop` is requested, backing off after a failure. Failures are logged and
  // counted, never propagated.
  void Run(std::stop_token stop);

  const EventWorkerCounters& counters() const { return counters_; }

 private:
  std::chrono::milliseconds RetryDelay(int attempts) const;
  std::vector<ReceivedEvent> ReceiveBatch();
  // Ack, retry or park `message` as its consumers' `result` says.
  void Settle(const ReceivedEvent& message, const ConsumeResult& result);

  EventSource& source_;
  ConsumerRunner& runner_;
  const EventWorkerConfig config_;
  EventWorkerCounters counters_;
};

}  // namespace docgate
