#include "app/consumer_runner.h"

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/config_check.h"
#include "core/error.h"

namespace docgate {

std::optional<std::string> ValidateConsumerRunnerConfig(const ConsumerRunnerConfig& config) {
  return ConfigCheck()
      .Range("DOCGATE_CONSUMER_MAX_ATTEMPTS", config.max_attempts, 1, 1000)
      .Problem();
}

std::optional<DocumentWithContent> ApprovedByEvent(std::optional<DocumentWithContent> found,
                                                   const OutboxEvent& event) {
  if (!found || found->document.approved_version != event.version) return std::nullopt;
  if (!found->content) {
    throw StorageError("document " + std::to_string(event.document_id) + " has no content for " +
                       "version " + std::to_string(event.version));
  }
  return found;
}

ConsumerRunner::ConsumerRunner(InboxStore& store, Clock& clock, ConsumerRunnerConfig config)
    : store_(store), clock_(clock), config_(config) {}

void ConsumerRunner::Register(InboxConsumer& consumer) { consumers_.push_back(&consumer); }

ConsumeResult ConsumerRunner::Run(const OutboxEvent& event) {
  return RunBatch(std::span(&event, 1)).front();
}

std::vector<ConsumeResult> ConsumerRunner::RunBatch(std::span<const OutboxEvent> events) {
  std::vector<ConsumeResult> results(events.size());
  for (InboxConsumer* consumer : consumers_) {
    if (events.size() > 1 && RunTogether(*consumer, events)) continue;
    for (std::size_t i = 0; i < events.size(); ++i) RunAlone(*consumer, events[i], results[i]);
  }
  return results;
}

bool ConsumerRunner::RunTogether(InboxConsumer& consumer, std::span<const OutboxEvent> events) {
  std::vector<const OutboxEvent*> by_id;
  by_id.reserve(events.size());
  for (const OutboxEvent& event : events) by_id.push_back(&event);
  std::ranges::sort(by_id, {}, &OutboxEvent::event_id);
  std::uint64_t processed = 0;
  std::uint64_t skipped = 0;
  try {
    consumer.PrepareAll(events);
    std::vector<std::string> ids;
    ids.reserve(by_id.size());
    for (const OutboxEvent* event : by_id) ids.push_back(event->event_id);
    auto tx = store_.BeginConsumer();
    // An event twice in one batch (published twice) is claimed once.
    const std::vector<InboxState> claims = tx->ClaimAll(consumer.Name(), ids, clock_.Now());
    for (std::size_t i = 0; i < by_id.size(); ++i) {
      if (claims[i] != InboxState::kNew) {
        ++skipped;
        continue;
      }
      consumer.Handle(*by_id[i], *tx);
      ++processed;
    }
    tx->Commit();
    tx->RunAfterCommit();
  } catch (const StorageUnavailable&) {
    throw;
  } catch (const std::exception&) {
    return false;  // rolled back: the caller runs the events one at a time, counting the failure
  }
  counters_.processed += processed;
  counters_.skipped += skipped;
  return true;
}

void ConsumerRunner::RunAlone(InboxConsumer& consumer, const OutboxEvent& event,
                              ConsumeResult& result) {
  std::string error;
  int max_attempts = config_.max_attempts;
  try {
    consumer.Prepare(event);
    auto tx = store_.BeginConsumer();
    if (tx->Claim(consumer.Name(), event.event_id, clock_.Now()) != InboxState::kNew) {
      ++counters_.skipped;
      return;
    }
    consumer.Handle(event, *tx);
    tx->Commit();
    tx->RunAfterCommit();
    ++counters_.processed;
    return;
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
      store_.RecordFailure(consumer.Name(), event, error, max_attempts, clock_.Now());
  ++counters_.failed;
  result.error = std::string(consumer.Name()) + ": " + error;
  if (failure.parked) {
    ++counters_.parked;
    result.parked = true;
    try {
      consumer.OnParked(event);
    } catch (const std::exception& e) {
      result.error += "; recording the parking failed: " + std::string(e.what());
    }
    return;
  }
  result.outcome = ConsumeOutcome::kFailed;
  result.attempts = std::max(result.attempts, failure.attempts);
}

void ConsumerRunner::Handle(const OutboxEvent& event) {
  const ConsumeResult result = Run(event);
  if (result.outcome == ConsumeOutcome::kFailed) {
    throw std::runtime_error("event " + event.event_id + " failed in " + result.error);
  }
}

}  // namespace docgate
