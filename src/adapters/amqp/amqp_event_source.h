#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/amqp/amqp_config.h"
#include "adapters/amqp/amqp_connection.h"
#include "adapters/amqp/amqp_url.h"
#include "app/ports/event_sink.h"
#include "app/ports/event_source.h"

namespace docgate {

// The EventSource on RabbitMQ (shared/API.md "Events"), over one AMQP connection and one channel,
// in publisher-confirm mode, that consumes config.queue with manual acknowledgements.
//
// Queues: config.queue (durable, bound to config.exchange with `document.#` and `review.#`,
// declared exactly as the event sink declares it); `<queue>.retry` (durable, x-dead-letter-exchange
// "" and x-dead-letter-routing-key <queue>: a message whose expiration runs out there goes back to
// the queue); `<queue>.parked` (durable). Connecting (TCP or TLS, login with the URL's heartbeat,
// channel 1, confirm.select, the exchange, the three queues and the binding) is bounded by
// config.connect_timeout as a whole. Only the first Receive on a connection starts consuming
// (basic.qos config.prefetch, basic.consume): a source that only replays or counts parked messages
// never takes messages from config.queue.
//
// There is no connection until the first call. A call that finds none connects first and throws
// EventSinkUnavailable when it cannot; there is no wait between attempts (the worker's loop paces
// them). Every failure of the connection (a socket error, missed heartbeats, the broker closing
// the channel or connection, a confirm not arriving within config.confirm_timeout, an answer not
// within config.request_timeout) drops it and throws EventSinkUnavailable: the broker then puts
// every unsettled message back at its place in its queue, delivered again with `redelivered`.
//
// Handles: ReceivedEvent::delivery_tag is this source's own handle (unique over its lifetime, never
// 0), not the broker's delivery tag, which restarts with each channel. Settling a message received
// on a connection that has since been dropped throws EventSinkUnavailable and does nothing else
// (the broker delivers it again); settling one twice, or a handle this source never gave, throws
// std::logic_error.
//
// Receive(timeout) waits for a delivery at most `timeout` (heartbeats are sent and checked while
// it waits; once a message has begun to arrive, its rest may take up to request_timeout more).
// Heartbeats are sent only within calls: a worker that spends more than twice the heartbeat
// between two calls loses the connection (its next call throws; the message comes back). The
// body is decoded with DecodeEventBody; one that is not a docgate event is received with event =
// nullopt and `error` set, never thrown. `redelivered` is the broker's flag.
//
// Retry and Park publish a copy of the message (body and properties, headers of integer and string
// kinds) to their queue through the default exchange, mandatory, and wait for the broker's
// confirm (config.confirm_timeout); only then is the original acked. A copy that no queue took
// (basic.return), a nack or no confirm in time drops the connection and throws, and the original
// is not acked. Retry sets `expiration` to the delay in milliseconds and the header
// `x-docgate-retries` to one more than the message had (1 when it had none). Park sets the header
// `x-docgate-park-reason` to `reason`, keeps x-docgate-retries, and sets no expiration. RabbitMQ
// expires messages only at the head of a queue: a retry with a short delay waits behind an earlier
// one with a longer delay.
//
// ReplayParked takes the parking queue's messages one by one with basic.get (acknowledgements on)
// from its head. A message to replay (every one when `event_id` is nullopt, else those whose body's
// event_id, or message_id for a body that is not an event, is `event_id`) is published to
// config.queue through the default exchange without x-docgate-park-reason, x-docgate-retries and
// expiration, confirmed, and only then acked in the parking queue. The others are held unsettled
// while the scan goes on (so that it passes them) and rejected with requeue at the end, which puts
// each back at its place: they stay parked in their order. It returns once the parking queue
// counts them again (RabbitMQ carries requeues out after it answers; waited for at most
// request_timeout). The scan ends at the queue's end or at `limit` replayed messages (none for a
// limit below 1). Returned: the replayed messages in parking order, each with delivery_tag 0
// (already settled). When it fails midway, those not yet replayed are back in the
// parking queue, in order, once the broker sees the connection go; one published but not yet
// acked there is then in both queues (delivered at least once).
//
// ParkedCount: the parking queue's ready messages (a passive declaration), bounded by
// request_timeout.
//
// Construction throws std::invalid_argument for a config that ValidatedEndpoint refuses or an
// empty config.queue; it does not connect. Destruction closes the connection (AMQP close handshake
// bounded by connect_timeout), so unsettled messages go back to the queue.
//
// Not thread-safe: one worker thread uses it.
class AmqpEventSource final : public EventSource {
 public:
  explicit AmqpEventSource(AmqpConfig config);
  ~AmqpEventSource() override;
  AmqpEventSource(const AmqpEventSource&) = delete;
  AmqpEventSource& operator=(const AmqpEventSource&) = delete;

  std::optional<ReceivedEvent> Receive(std::chrono::milliseconds timeout) override;
  void Ack(const ReceivedEvent& message) override;
  void Retry(const ReceivedEvent& message, std::chrono::milliseconds delay) override;
  void Park(const ReceivedEvent& message, std::string_view reason) override;
  std::vector<ReceivedEvent> ReplayParked(const std::optional<std::string>& event_id,
                                          int limit) override;
  std::int64_t ParkedCount() override;

  static constexpr std::string_view kRetriesHeader = "x-docgate-retries";
  static constexpr std::string_view kParkReasonHeader = "x-docgate-park-reason";

 private:
  using Clock = AmqpConnection::Clock;

  // A message received and not yet settled on the current connection.
  struct Unsettled {
    std::uint64_t delivery_tag = 0;  // the broker's
    AmqpMessage message;
  };

  // Connects when there is no connection; throws EventSinkUnavailable when it cannot.
  void Connect();
  // Drops the connection after `why` and returns the exception to throw.
  EventSinkUnavailable Lost(const std::string& what, const std::string& why);
  // The unsettled message `message` is a handle of; throws as the class comment says.
  std::map<std::uint64_t, Unsettled>::iterator Find(const ReceivedEvent& message);
  // Publishes `copy` to its queue (copy.routing_key) and waits for its confirm, then acks the
  // unsettled message `it` and forgets it. Throws EventSinkUnavailable.
  void Move(std::map<std::uint64_t, Unsettled>::iterator it, const AmqpMessage& copy,
            std::string_view what);
  // Publishes `message` through the default exchange (mandatory) and waits for its confirm,
  // keeping deliveries that arrive meanwhile for Receive. Throws AmqpError.
  void PublishConfirmed(const AmqpMessage& message);
  // Rejects the parked messages ReplayParked passed over with requeue, and waits until the
  // parking queue counts them again (at most request_timeout). Throws AmqpError.
  void PutBack(const std::vector<std::uint64_t>& passed);
  Clock::time_point RequestDeadline() const { return Clock::now() + config_.request_timeout; }
  ReceivedEvent Describe(const AmqpInbound& delivery) const;
  void Notice(const AmqpInbound& inbound) const;

  const AmqpConfig config_;
  const AmqpEndpoint endpoint_;
  const std::string retry_queue_;
  const std::string parked_queue_;
  bool consuming_ = false;  // basic.consume issued on connection_ (by the first Receive)
  std::unique_ptr<AmqpConnection> connection_;
  std::deque<AmqpInbound> deliveries_;            // arrived while a confirm was awaited
  std::map<std::uint64_t, Unsettled> unsettled_;  // by handle
  std::uint64_t next_handle_ = 1;
  std::uint64_t first_handle_ = 1;  // of the current connection: earlier ones are stale
  std::uint64_t next_publish_tag_ = 1;
};

}  // namespace docgate
