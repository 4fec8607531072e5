#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "adapters/amqp/amqp_url.h"

namespace docgate {

// How docgate reaches RabbitMQ for event delivery.
struct AmqpConfig {
  // DOCGATE_AMQP_URL: amqp://[user[:password]@]host[:port][/vhost][?heartbeat=SECONDS] or amqps://
  // (TLS). Empty: events are delivered in process. The vhost is percent-decoded ("/%2F" is "/").
  // Defaults: guest/guest, port 5672 (amqps: 5671), vhost "/".
  std::string url;
  // DOCGATE_AMQP_CA_FILE: PEM certificates amqps:// servers are verified against; empty: the
  // system's trust store. The server's certificate must name the URL's host.
  std::string ca_file;
  // DOCGATE_AMQP_EXCHANGE: the durable topic exchange events are published to.
  std::string exchange = "docgate.events";
  // DOCGATE_AMQP_QUEUE: the durable queue docgate's own consumers read, bound to `document.#` and
  // `review.#` on the exchange; empty: declare none (every binding is then someone else's
  // business). The event source (`docgate worker`) needs it, and also uses `<queue>.retry` and
  // `<queue>.parked`.
  std::string queue = "docgate.consumers";
  // DOCGATE_AMQP_PREFETCH: the event source's basic.qos, the most messages it holds unsettled
  // (1..65535).
  int prefetch = 16;
  // Heartbeat when the URL names none (seconds; 0 turns heartbeats off). Heartbeats are sent from
  // the relay's calls to EventSink::Maintain(), so its idle poll must be shorter than this.
  int heartbeat_seconds = 30;
  // DOCGATE_AMQP_CONNECT_TIMEOUT_MS: TCP connect + TLS handshake + AMQP login + declarations.
  std::chrono::milliseconds connect_timeout{5000};
  // DOCGATE_AMQP_CONFIRM_TIMEOUT_MS: the longest wait for the broker to confirm a published batch.
  // When it runs out the connection is dropped and the batch stays pending (sent again later).
  // The event source's bound for the confirm of one message it retries, parks or replays.
  std::chrono::milliseconds confirm_timeout{10000};
  // DOCGATE_AMQP_REQUEST_TIMEOUT_MS: the event source's longest wait for the broker's answer to
  // one request (basic.get, a queue's message count) and, once a message has begun to arrive, for
  // the rest of it.
  std::chrono::milliseconds request_timeout{5000};
  // After a failed connect the sink waits reconnect_initial, doubling up to reconnect_max, before
  // trying again from Maintain().
  std::chrono::milliseconds reconnect_initial{250};
  std::chrono::milliseconds reconnect_max{10000};
};

// Why the DOCGATE_AMQP_* settings cannot be used, in one line naming the variable (never echoing
// the URL's password), or nullopt when they can: the startup check, where an empty URL (no broker)
// is valid. A URL must parse (with heartbeat_seconds as its default heartbeat) and then needs an
// exchange; the timeouts must be positive and the prefetch 1..65535. Connects to nothing.
std::optional<std::string> ValidateAmqpConfig(const AmqpConfig& config);

// Checks `config` for the sink and the source alike (exchange named, heartbeat 0..65535, timeouts
// positive, reconnect_max at least reconnect_initial, prefetch 1..65535, CA file readable) and
// parses its URL. Throws std::invalid_argument with a one-line reason.
AmqpEndpoint ValidatedEndpoint(const AmqpConfig& config);

}  // namespace docgate
