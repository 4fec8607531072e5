#pragma once

// A queue of the test's own on a RabbitMQ exchange, to observe what docgate publishes there.
// Header-only, test use only; it speaks AMQP through the adapter's AmqpConnection (rabbitmq-c).

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "adapters/amqp/amqp_connection.h"
#include "adapters/amqp/amqp_url.h"

namespace docgate {

struct ReceivedMessage {
  std::string routing_key;
  std::string message_id;
  std::string content_type;
  int delivery_mode = 0;  // 2: persistent
  std::string type;
  std::uint64_t timestamp = 0;
  bool redelivered = false;
  std::string body;
};

// Consumes (without acknowledgements) either a fresh server-named exclusive, auto-deleted queue
// bound to `exchange` with `binding_key`, or an existing queue. The exchange is declared as docgate
// declares it (durable topic), so whichever comes first, the other's declaration agrees. Every
// call is bounded (5 s for setting up); failures throw AmqpError. Not thread-safe.
class AmqpTestQueue {
 public:
  // `url` is amqp:// or amqps://; `ca_file` is used for amqps:// (empty: the system's store).
  AmqpTestQueue(const std::string& url, const std::string& ca_file, const std::string& exchange,
                const std::string& binding_key)
      : connection_(ParseAmqpUrl(url, 0), ca_file, SetupDeadline()) {
    BindAndConsume(exchange, binding_key, "", /*durable=*/false);
  }

  struct Durable {
    std::string queue;
  };
  // Declares `durable.queue` as a durable queue bound to `exchange` with `binding_key` (agreeing
  // with an earlier declaration of it) and consumes it: what docgate publishes persistent while
  // nobody consumes, even across a broker restart, waits there for the next AmqpTestQueue on it.
  // The queue outlives this object.
  AmqpTestQueue(const std::string& url, const std::string& ca_file, const std::string& exchange,
                const std::string& binding_key, const Durable& durable)
      : connection_(ParseAmqpUrl(url, 0), ca_file, SetupDeadline()) {
    BindAndConsume(exchange, binding_key, durable.queue, /*durable=*/true);
  }

  struct Existing {
    std::string queue;
  };
  // Consumes `existing.queue` as it is (declared by someone else).
  AmqpTestQueue(const std::string& url, const std::string& ca_file, const Existing& existing)
      : connection_(ParseAmqpUrl(url, 0), ca_file, SetupDeadline()), queue_(existing.queue) {
    connection_.Consume(queue_, SetupDeadline());
  }

  const std::string& queue() const { return queue_; }

  // The next `count` messages, or fewer when `timeout` runs out first, in arrival order.
  std::vector<ReceivedMessage> Receive(std::size_t count, std::chrono::milliseconds timeout) {
    const auto deadline = AmqpConnection::Clock::now() + timeout;
    std::vector<ReceivedMessage> messages;
    while (messages.size() < count) {
      const auto inbound = connection_.Next(deadline);
      if (!inbound) break;
      if (inbound->kind != AmqpInbound::Kind::kDeliver) continue;
      const AmqpMessage& message = inbound->message;
      messages.push_back({message.routing_key, message.message_id, message.content_type,
                          message.delivery_mode, message.type, message.timestamp,
                          inbound->redelivered, message.body});
    }
    return messages;
  }

  // Everything that arrives within `duration` (to show that nothing more comes).
  std::vector<ReceivedMessage> ReceiveFor(std::chrono::milliseconds duration) {
    return Receive(SIZE_MAX, duration);
  }

 private:
  // Declares the exchange and the queue `name` (server-named when empty): durable, or exclusive
  // and auto-deleted; binds it and consumes it.
  void BindAndConsume(const std::string& exchange, const std::string& binding_key,
                      const std::string& name, bool durable) {
    connection_.DeclareExchange(exchange, SetupDeadline());
    queue_ = connection_.DeclareQueue(name, durable, /*exclusive=*/!durable,
                                      /*auto_delete=*/!durable, {}, SetupDeadline());
    connection_.BindQueue(queue_, exchange, binding_key, SetupDeadline());
    connection_.Consume(queue_, SetupDeadline());
  }

  static AmqpConnection::Clock::time_point SetupDeadline() {
    return AmqpConnection::Clock::now() + std::chrono::seconds(5);
  }

  AmqpConnection connection_;
  std::string queue_;
};

}  // namespace docgate
