#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model.h"

namespace docgate {

// One message taken from the consumers' queue, not yet settled.
struct ReceivedEvent {
  std::optional<OutboxEvent> event;  // nullopt when the body is not a docgate event (see error)
  std::string error;                 // why the body could not be decoded
  std::string body;                  // as received
  std::uint64_t delivery_tag = 0;    // the source's handle for settling it
  bool redelivered = false;          // the broker delivered it before without an ack
};

// Where `docgate worker` takes events from: a durable queue with manual acknowledgement (RabbitMQ:
// `docgate.consumers`, bound to docgate.events with `document.#` and `review.#`), a retry queue
// that hands a message back after a delay, and a parking queue for messages given up on. Every
// message taken is settled exactly once by Ack, Retry or Park; one taken but never settled (the
// process died) is delivered again by the broker. At most `prefetch` messages are unsettled at a
// time. Not thread-safe: one worker thread uses it. Throws EventSinkUnavailable when the broker
// cannot be reached or the connection broke (unsettled messages then come back by themselves); the
// next call reconnects.
class EventSource {
 public:
  virtual ~EventSource() = default;
  // The next message, waiting at most `timeout`; nullopt when none came.
  virtual std::optional<ReceivedEvent> Receive(std::chrono::milliseconds timeout) = 0;
  // Done with it: the broker forgets it.
  virtual void Ack(const ReceivedEvent& message) = 0;
  // Hands it back to the queue after `delay`: the same body goes to the retry queue with that
  // expiry (confirmed by the broker) and only then is the original acked.
  virtual void Retry(const ReceivedEvent& message, std::chrono::milliseconds delay) = 0;
  // Moves it to the parking queue with `reason` in a header (confirmed), then acks the original.
  virtual void Park(const ReceivedEvent& message, std::string_view reason) = 0;
  // Moves parked messages back to the consumers' queue, each confirmed there before it leaves the
  // parking queue, and returns them in parking order: every parked message when `event_id` is
  // nullopt, else only that event's (the others stay parked, in their order). At most `limit`.
  virtual std::vector<ReceivedEvent> ReplayParked(const std::optional<std::string>& event_id,
                                                  int limit) = 0;
  // Messages waiting in the parking queue (operators' view).
  virtual std::int64_t ParkedCount() = 0;
};

}  // namespace docgate
