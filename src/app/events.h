#pragma once

#include <string_view>

#include "core/model.h"

namespace docgate {

// Told after a transition commits, so the outbox dispatcher wakes up instead of polling.
// Must be cheap and must not throw. Thread-safe.
class OutboxWakeup {
 public:
  virtual ~OutboxWakeup() = default;
  virtual void Wake() = 0;
};

// Where the dispatcher delivers outbox events: in process to the built-in consumers, or to a
// broker. Deliver returns once the event is safely handed over and throws on failure; the event
// then stays in the outbox and is retried. Delivery is at least once, so targets dedupe by
// event_id. Called from one dispatcher thread at a time.
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void Deliver(const OutboxEvent& event) = 0;
};

// A downstream reaction to events (preview projection, ingestion, ...). Handle throws on failure.
class EventConsumer {
 public:
  virtual ~EventConsumer() = default;
  virtual std::string_view Name() const = 0;
  virtual void Handle(const OutboxEvent& event) = 0;
};

}  // namespace docgate
