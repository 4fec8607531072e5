#include "adapters/amqp/amqp_topology.h"

namespace docgate {

void DeclareEventTopology(AmqpConnection& connection, const AmqpConfig& config,
                          AmqpConnection::Clock::time_point deadline) {
  connection.DeclareExchange(config.exchange, deadline);
  if (config.queue.empty()) return;
  connection.DeclareQueue(config.queue, /*durable=*/true, /*exclusive=*/false,
                          /*auto_delete=*/false, {}, deadline);
  // docgate's own consumers take every event: the review events are routed to the queue too, so
  // that the broker never returns one as unroutable (a returned event stays pending and holds back
  // its document's later events); the consumers pass over the types they do not act on.
  connection.BindQueue(config.queue, config.exchange, "document.#", deadline);
  connection.BindQueue(config.queue, config.exchange, "review.#", deadline);
}

std::string RetryQueueName(const AmqpConfig& config) { return config.queue + ".retry"; }

std::string ParkedQueueName(const AmqpConfig& config) { return config.queue + ".parked"; }

}  // namespace docgate
