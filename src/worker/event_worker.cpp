#include "worker/event_worker.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "core/config_check.h"
#include "worker/stoppable_sleep.h"

namespace docgate {

std::optional<std::string> ValidateEventWorkerConfig(const EventWorkerConfig& config) {
  return ConfigCheck()
      .Positive("the consumers' retry delay", config.retry_delay)
      .Require(config.max_retry_delay >= config.retry_delay,
               "DOCGATE_CONSUMER_RETRY_MAX_MS must be at least " +
                   std::to_string(config.retry_delay.count()))
      .Positive("the worker's receive timeout", config.receive_timeout)
      .Positive("the worker's initial backoff", config.initial_backoff)
      .Range("DOCGATE_CONSUMER_BATCH", config.batch_size, 1, 1000)
      .Problem();
}

EventWorker::EventWorker(EventSource& source, ConsumerRunner& runner, EventWorkerConfig config)
    : source_(source), runner_(runner), config_(config) {}

std::chrono::milliseconds EventWorker::RetryDelay(int attempts) const {
  auto delay = config_.retry_delay;
  for (int i = 1; i < attempts && delay < config_.max_retry_delay; ++i) delay *= 2;
  return std::min(delay, config_.max_retry_delay);
}

std::vector<ReceivedEvent> EventWorker::ReceiveBatch() {
  std::vector<ReceivedEvent> batch;
  auto message = source_.Receive(config_.receive_timeout);
  while (message) {
    batch.push_back(std::move(*message));
    if (std::cmp_greater_equal(batch.size(), config_.batch_size)) break;
    message = source_.Receive(std::chrono::milliseconds::zero());  // only what is already there
  }
  return batch;
}

bool EventWorker::RunOnce() {
  std::vector<ReceivedEvent> batch = ReceiveBatch();
  if (batch.empty()) return false;
  std::vector<ReceivedEvent> messages;
  std::vector<OutboxEvent> events;
  for (ReceivedEvent& message : batch) {
    if (!message.event) {
      spdlog::warn("worker: parking a message that is not a docgate event: {}", message.error);
      source_.Park(message, "not a docgate event: " + message.error);
      ++counters_.parked;
      continue;
    }
    events.push_back(*message.event);
    messages.push_back(std::move(message));
  }
  std::vector<ConsumeResult> results;
  try {
    results = runner_.RunBatch(events);
  } catch (const std::exception&) {
    // The database failed under the consumers. A message left unsettled comes back only when the
    // broker connection goes, and a healthy one never does: they go back through the retry queue
    // for whichever instance reaches the database first, and the loop backs off.
    for (const ReceivedEvent& message : messages) {
      source_.Retry(message, config_.retry_delay);
      ++counters_.retried;
    }
    throw;
  }
  for (std::size_t i = 0; i < messages.size(); ++i) Settle(messages[i], results[i]);
  return true;
}

void EventWorker::Settle(const ReceivedEvent& message, const ConsumeResult& result) {
  if (result.outcome == ConsumeOutcome::kFailed) {
    const auto delay = RetryDelay(result.attempts);
    spdlog::warn("worker: event {} failed (attempt {}), retrying in {} ms: {}",
                 message.event->event_id, result.attempts, delay.count(), result.error);
    source_.Retry(message, delay);
    ++counters_.retried;
  } else if (result.parked) {
    spdlog::error("worker: event {} parked: {}", message.event->event_id, result.error);
    source_.Park(message, result.error);
    ++counters_.parked;
  } else {
    source_.Ack(message);
    ++counters_.processed;
  }
}

void EventWorker::Run(std::stop_token stop) {
  auto backoff = config_.initial_backoff;
  while (!stop.stop_requested()) {
    try {
      RunOnce();
      backoff = config_.initial_backoff;
    } catch (const std::exception& e) {
      // The worker loop's boundary: the unsettled message comes back from the broker.
      ++counters_.errors;
      spdlog::warn("worker: {}; trying again in {} ms", e.what(), backoff.count());
      SleepUnlessStopped(stop, backoff);
      backoff = std::min(backoff * 2, config_.max_backoff);
    }
  }
}

}  // namespace docgate
