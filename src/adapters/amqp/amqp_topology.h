#pragma once

#include <string>

#include "adapters/amqp/amqp_config.h"
#include "adapters/amqp/amqp_connection.h"

namespace docgate {

// What docgate declares on RabbitMQ, shared by the event sink and the event source so that their
// declarations never conflict.

// The durable topic exchange config.exchange and, when config.queue is set, that durable queue (no
// arguments) bound to it with `document.#` and `review.#`. Throws AmqpError.
void DeclareEventTopology(AmqpConnection& connection, const AmqpConfig& config,
                          AmqpConnection::Clock::time_point deadline);

// The event source's queues beside config.queue: messages wait out a retry delay in the first
// (expired ones go back to config.queue) and are parked in the second.
std::string RetryQueueName(const AmqpConfig& config);
std::string ParkedQueueName(const AmqpConfig& config);

}  // namespace docgate
