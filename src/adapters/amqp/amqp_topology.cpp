#include "adapters/amqp/amqp_topology.h"

namespace docgate {

void DeclareEventTopology(AmqpConnection& connection, const AmqpConfig& config,
                          AmqpConnection::Clock::time_point deadline) {
  connection.DeclareExchange(config.exchange, deadline);
  if (config.queue.empty()) return;
  connection.DeclareQueue(config.queue, /*durable=*/true, /*exclusive=*/false,
                          /*auto_delete=*/false, {}, deadline);
  // docgate's own consumers take every document event.
  connection.BindQueue(config.queue, config.exchange, "document.#", deadline);
}

std::string RetryQueueName(const AmqpConfig& config) { return config.queue + ".retry"; }

std::string ParkedQueueName(const AmqpConfig& config) { return config.queue + ".parked"; }

}  // namespace docgate
