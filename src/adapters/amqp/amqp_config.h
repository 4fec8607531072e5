#pragma once

#include <chrono>
#include <string>

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
  // DOCGATE_AMQP_QUEUE: the durable queue docgate's own consumers read, bound to `document.#` on
  // the exchange; empty: declare none (every binding is then someone else's business).
  std::string queue = "docgate.consumers";
  // Heartbeat when the URL names none (seconds; 0 turns heartbeats off). Heartbeats are sent from
  // the relay's calls to EventSink::Maintain(), so its idle poll must be shorter than this.
  int heartbeat_seconds = 30;
  // DOCGATE_AMQP_CONNECT_TIMEOUT_MS: TCP connect + TLS handshake + AMQP login + declarations.
  std::chrono::milliseconds connect_timeout{5000};
  // DOCGATE_AMQP_CONFIRM_TIMEOUT_MS: the longest wait for the broker to confirm a published batch.
  // When it runs out the connection is dropped and the batch stays pending (sent again later).
  std::chrono::milliseconds confirm_timeout{10000};
  // After a failed connect the sink waits reconnect_initial, doubling up to reconnect_max, before
  // trying again from Maintain().
  std::chrono::milliseconds reconnect_initial{250};
  std::chrono::milliseconds reconnect_max{10000};
};

}  // namespace docgate
