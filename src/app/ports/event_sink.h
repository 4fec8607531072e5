#pragma once

#include <span>
#include <stdexcept>
#include <vector>

#include "core/model.h"

namespace docgate {

// The EventSink's target cannot be reached (broker down, connection lost, confirms timed out).
class EventSinkUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What became of one event handed to an EventSink.
enum class DeliveryOutcome {
  kDelivered,  // safely handed over (the broker's ack, every consumer done): mark it sent
  kReturned,   // the broker had no queue for it (basic.return): retry later, counted
  kNacked,     // the broker refused it (basic.nack): retry later, counted
  kFailed,     // a consumer failed on it: retry later
};

// Where the relay delivers outbox events: in process to the built-in consumers, or to a broker.
// Called from one relay thread at a time.
class EventSink {
 public:
  virtual ~EventSink() = default;
  // Hands `events` over in order and returns one outcome per event, in the same order. Throws when
  // the target cannot be reached or the fate of the batch is unknown (the connection broke before
  // every confirm arrived); the whole batch then stays pending and is delivered again, so targets
  // may see an event twice, always with the same event_id, and dedupe by it.
  virtual std::vector<DeliveryOutcome> Deliver(std::span<const OutboxEvent> events) = 0;
  // Called by the relay between rounds, at least every idle poll: keeps a connection alive
  // (heartbeats) and re-establishes a lost one, so readiness heals without traffic. Never throws.
  virtual void Maintain() {}
};

}  // namespace docgate
