#pragma once

#include <span>
#include <stdexcept>
#include <string_view>

#include "app/ports/consumer_transaction.h"
#include "core/model.h"

namespace docgate {

// Thrown by InboxConsumer::Handle when the event can never succeed, however often it is tried
// (its document is beyond what the consumer may do in one attempt): the runner parks it at once,
// so that it does not hold the consumer's transaction again on every retry.
class PermanentConsumerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A built-in reaction to events (preview projection, ingestion) that runs behind the inbox: the
// runner claims (consumer, event_id) in a ConsumerTransaction and hands that transaction over, so
// the consumer's database effect and its inbox row commit together.
class InboxConsumer {
 public:
  virtual ~InboxConsumer() = default;
  // Stable: it keys the inbox.
  virtual std::string_view Name() const = 0;
  // Work outside the consumers' database (a remote store), run before the
  // transaction begins so that no database lock is held through a remote call.
  // Runs on every delivery, before the inbox is consulted, so it must be
  // idempotent. Throws on failure, counted like Handle's.
  virtual void Prepare(const OutboxEvent& /*event*/) {}
  // Prepare for every event of a batch (ConsumerRunner::RunBatch), which a consumer may do in
  // fewer calls to its remote store; this one calls Prepare for each.
  virtual void PrepareAll(std::span<const OutboxEvent> events) {
    for (const OutboxEvent& event : events) Prepare(event);
  }
  // Reacts to `event` within `tx` (already claimed; the runner commits). Ignores event types it
  // does not handle. Throws on failure; the runner rolls back and counts the attempt, and parks
  // the event at once when it is a PermanentConsumerError.
  virtual void Handle(const OutboxEvent& event, ConsumerTransaction& tx) = 0;
  // Told once when `event` has just been parked for this consumer (to record the failure where
  // users see it). Throws like Handle; a failure here is logged, the event stays parked.
  virtual void OnParked(const OutboxEvent& /*event*/) {}
};

}  // namespace docgate
