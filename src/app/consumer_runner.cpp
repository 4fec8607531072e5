#include "app/consumer_runner.h"

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <string>

#include "core/config_check.h"
#include "core/error.h"

namespace docgate {

std::optional<std::string> ValidateConsumerRunnerConfig(const ConsumerRunnerConfig& config) {
  return ConfigCheck()
      .Range("DOCGATE_CONSUMER_MAX_ATTEMPTS", config.max_attempts, 1, 1000)
      .Problem();
}

std::string ContentOf(ConsumerTransaction& tx, const OutboxEvent& event) {
  auto content = tx.ReadContent(event.document_id, event.version);
  if (!content) {
    throw StorageError("document " + std::to_string(event.document_id) + " has no content for " +
                       "version " + std::to_string(event.version));
  }
  return std::move(*content);
}

ConsumerRunner::ConsumerRunner(InboxStore& store, Clock& clock, ConsumerRunnerConfig config)
    : store_(store), clock_(clock), config_(config) {}

void ConsumerRunner::Register(InboxConsumer& consumer) { consumers_.push_back(&consumer); }

ConsumeResult ConsumerRunner::Run(const OutboxEvent& event) {
  ConsumeResult result;
  for (InboxConsumer* consumer : consumers_) {
    std::string error;
    int max_attempts = config_.max_attempts;
    try {
      consumer->Prepare(event);
      auto tx = store_.BeginConsumer();
      if (tx->Claim(consumer->Name(), event.event_id, clock_.Now()) != InboxState::kNew) {
        ++counters_.skipped;
        continue;
      }
      consumer->Handle(event, *tx);
      tx->Commit();
      tx->RunAfterCommit();
      ++counters_.processed;
      continue;
    } catch (const StorageUnavailable&) {
      // Not the consumer's fault and not worth an attempt: the caller retries the delivery.
      throw;
    } catch (const PermanentConsumerError& e) {
      error = e.what();
      max_attempts = 1;
    } catch (const std::exception& e) {
      error = e.what();
    }
    // A consumer's failure is counted against it alone; the other consumers still run.
    const ConsumerFailure failure =
        store_.RecordFailure(consumer->Name(), event, error, max_attempts, clock_.Now());
    ++counters_.failed;
    result.error = std::string(consumer->Name()) + ": " + error;
    if (failure.parked) {
      ++counters_.parked;
      result.parked = true;
      try {
        consumer->OnParked(event);
      } catch (const std::exception& e) {
        result.error += "; recording the parking failed: " + std::string(e.what());
      }
      continue;
    }
    result.outcome = ConsumeOutcome::kFailed;
    result.attempts = std::max(result.attempts, failure.attempts);
  }
  return result;
}

void ConsumerRunner::Handle(const OutboxEvent& event) {
  const ConsumeResult result = Run(event);
  if (result.outcome == ConsumeOutcome::kFailed) {
    throw std::runtime_error("event " + event.event_id + " failed in " + result.error);
  }
}

}  // namespace docgate
