#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "adapters/amqp/amqp_config.h"
#include "adapters/amqp/amqp_url.h"
#include "app/ports/event_sink.h"

namespace docgate {

class AmqpConnection;
struct AmqpInbound;

// The EventSink on RabbitMQ (shared/API.md "Events"), over one AMQP connection and one channel in
// publisher-confirm mode.
//
// Connecting (TCP or TLS, login with the URL's heartbeat, channel 1, confirm.select, the durable
// topic exchange config.exchange and, when config.queue is set, that durable queue bound with
// `document.#` and `review.#`) is bounded by config.connect_timeout as a whole.
//
// Deliver() publishes the whole batch, each event persistent and mandatory to config.exchange with
// routing key = its type, content_type application/json, message_id = event_id, type = its type,
// timestamp = occurred_at (seconds) and EncodeEventBody as body; then it waits until the broker
// has confirmed every one, config.confirm_timeout for the batch as a whole. Outcomes, in order:
// kDelivered (acked), kReturned (basic.return: no queue took it; its ack follows and does not
// change that) or kNacked. It throws EventSinkUnavailable instead of returning any outcome when
// there is no connection and none can be made now (see below), and when the connection fails
// before every confirm of the batch arrived: the broker closing the channel or the connection (the
// message quotes its reply), a socket error, missed heartbeats, the socket not taking the batch or
// the confirms not arriving within confirm_timeout. The connection is then dropped, and the next
// Deliver() or Maintain() connects anew (delivery tags restart at 1 on the new channel).
//
// Reconnecting: right after a connection is lost the next call may connect at once; after a failed
// attempt the sink waits config.reconnect_initial, doubling up to config.reconnect_max (reset by a
// success), before the next one. Deliver() within that wait throws at once rather than trying.
//
// Maintain() services an open connection without blocking (sends due heartbeats, notices a closed
// connection or missed heartbeats) and, when there is none and the wait is over, tries to connect
// (which may take up to connect_timeout, like any connection attempt). It never throws. Losing and
// regaining the connection are logged (warn / info), failed attempts in between are not.
//
// Construction throws std::invalid_argument for a malformed URL, a CA file that cannot be read,
// an empty exchange or a non-positive timeout; it tries to connect once and, when it cannot, logs a
// warning and starts degraded. Destruction closes the connection (AMQP close handshake bounded by
// connect_timeout).
//
// Threads: Deliver() and Maintain() use the connection and must be called from one thread at a
// time (the relay's). State() and the counters may be read from any thread at any time.
class AmqpEventSink final : public EventSink {
 public:
  explicit AmqpEventSink(AmqpConfig config);
  ~AmqpEventSink() override;
  AmqpEventSink(const AmqpEventSink&) = delete;
  AmqpEventSink& operator=(const AmqpEventSink&) = delete;

  std::vector<DeliveryOutcome> Deliver(std::span<const OutboxEvent> events) override;
  void Maintain() override;

  // For /readyz: "ok" while connected, "degraded" otherwise.
  std::string State() const;

  // Events the broker acked (kDelivered), returned (kReturned) and nacked (kNacked) so far.
  std::uint64_t published() const { return published_.load(); }
  std::uint64_t returned() const { return returned_.load(); }
  std::uint64_t nacked() const { return nacked_.load(); }
  // Connections established; connection failures (failed attempts and lost connections).
  std::uint64_t connects() const { return connects_.load(); }
  std::uint64_t failures() const { return failures_.load(); }

 private:
  using Clock = std::chrono::steady_clock;

  // Connects if there is no connection and the reconnect wait is over; false when there is none.
  bool EnsureConnected();
  // Drops the connection after `why` (it is gone or in an unknown state).
  void Lost(const std::string& why);
  // Publishes `events` and collects their confirms. Throws AmqpError.
  std::vector<DeliveryOutcome> PublishAndConfirm(std::span<const OutboxEvent> events);
  void Notice(const AmqpInbound& inbound);

  const AmqpConfig config_;
  const AmqpEndpoint endpoint_;
  std::unique_ptr<AmqpConnection> connection_;
  std::uint64_t next_delivery_tag_ = 1;
  Clock::time_point next_attempt_{};
  std::chrono::milliseconds backoff_;
  std::string last_error_;
  std::atomic<bool> connected_{false};
  std::atomic<std::uint64_t> published_{0};
  std::atomic<std::uint64_t> returned_{0};
  std::atomic<std::uint64_t> nacked_{0};
  std::atomic<std::uint64_t> connects_{0};
  std::atomic<std::uint64_t> failures_{0};
};

}  // namespace docgate
