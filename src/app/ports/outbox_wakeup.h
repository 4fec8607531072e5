#pragma once

namespace docgate {

// Told after a transition commits, so the outbox relay wakes up instead of polling.
// Must be cheap and must not throw. Thread-safe.
class OutboxWakeup {
 public:
  virtual ~OutboxWakeup() = default;
  virtual void Wake() = 0;
};

}  // namespace docgate
