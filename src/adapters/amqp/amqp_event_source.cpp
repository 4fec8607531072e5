#include "adapters/amqp/amqp_event_source.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <stdexcept>
#include <thread>
#include <utility>

#include "adapters/amqp/amqp_topology.h"
#include "adapters/amqp/event_message.h"

namespace docgate {
namespace {

const AmqpConfig& WithQueue(const AmqpConfig& config) {
  if (config.queue.empty()) {
    throw std::invalid_argument("the AMQP event source needs a queue (DOCGATE_AMQP_QUEUE)");
  }
  return config;
}

const std::int64_t* FindInt(const AmqpArguments& headers, std::string_view key) {
  for (const auto& [name, value] : headers) {
    if (name == key) return std::get_if<std::int64_t>(&value);
  }
  return nullptr;
}

void SetHeader(AmqpArguments& headers, std::string_view key,
               std::variant<std::int64_t, std::string> value) {
  std::erase_if(headers, [&](const auto& header) { return header.first == key; });
  headers.emplace_back(std::string(key), std::move(value));
}

// The event a message carries, for ReplayParked's choice: the body's event_id, or the message_id
// of a body that is not an event.
std::string EventIdOf(const AmqpMessage& message) {
  const auto event = DecodeEventBody(message.body);
  return event ? event->event_id : message.message_id;
}

}  // namespace

AmqpEventSource::AmqpEventSource(AmqpConfig config)
    : config_(std::move(config)),
      endpoint_(ValidatedEndpoint(WithQueue(config_))),
      retry_queue_(RetryQueueName(config_)),
      parked_queue_(ParkedQueueName(config_)) {}

AmqpEventSource::~AmqpEventSource() {
  if (connection_) connection_->Close(Clock::now() + config_.connect_timeout);
}

std::optional<ReceivedEvent> AmqpEventSource::Receive(std::chrono::milliseconds timeout) {
  Connect();
  const auto deadline = Clock::now() + std::max(timeout, std::chrono::milliseconds::zero());
  try {
    // Only a receiving source consumes: one that only replays or counts (docgate events) must not
    // take messages from the consumers' queue and hold them.
    if (!consuming_) {
      connection_->Qos(static_cast<std::uint16_t>(config_.prefetch), RequestDeadline());
      connection_->Consume(config_.queue, RequestDeadline(), AmqpConnection::Acks::kManual);
      consuming_ = true;
    }
    for (;;) {
      std::optional<AmqpInbound> inbound;
      if (!deliveries_.empty()) {
        inbound = std::move(deliveries_.front());
        deliveries_.pop_front();
      } else {
        inbound = connection_->Next(deadline, RequestDeadline());
      }
      if (!inbound) return std::nullopt;
      if (inbound->kind != AmqpInbound::Kind::kDeliver) {
        Notice(*inbound);
        continue;
      }
      ReceivedEvent received = Describe(*inbound);
      received.delivery_tag = next_handle_++;
      unsettled_.emplace(received.delivery_tag,
                         Unsettled{inbound->delivery_tag, std::move(inbound->message)});
      return received;
    }
  } catch (const AmqpError& e) {
    throw Lost("receiving from RabbitMQ failed", e.what());
  }
}

void AmqpEventSource::Ack(const ReceivedEvent& message) {
  const auto it = Find(message);
  try {
    connection_->Ack(it->second.delivery_tag, RequestDeadline());
  } catch (const AmqpError& e) {
    throw Lost("acking a message failed", e.what());
  }
  unsettled_.erase(it);
}

void AmqpEventSource::Retry(const ReceivedEvent& message, std::chrono::milliseconds delay) {
  const auto it = Find(message);
  AmqpMessage copy = it->second.message;
  copy.routing_key = retry_queue_;
  copy.expiration = std::to_string(std::max<std::int64_t>(delay.count(), 0));
  const std::int64_t* retries = FindInt(copy.headers, kRetriesHeader);
  SetHeader(copy.headers, kRetriesHeader, (retries != nullptr ? *retries : 0) + 1);
  Move(it, copy, "retrying a message");
}

void AmqpEventSource::Park(const ReceivedEvent& message, std::string_view reason) {
  const auto it = Find(message);
  AmqpMessage copy = it->second.message;
  copy.routing_key = parked_queue_;
  copy.expiration.clear();
  SetHeader(copy.headers, kParkReasonHeader, std::string(reason));
  Move(it, copy, "parking a message");
}

std::vector<ReceivedEvent> AmqpEventSource::ReplayParked(const std::optional<std::string>& event_id,
                                                         int limit) {
  Connect();
  std::vector<ReceivedEvent> replayed;
  // Passed over, held unsettled so that basic.get moves on, then put back at their places.
  std::vector<std::uint64_t> passed;
  try {
    while (std::cmp_less(replayed.size(), limit)) {
      auto parked = connection_->Get(parked_queue_, RequestDeadline());
      if (!parked) break;
      if (event_id && EventIdOf(parked->message) != *event_id) {
        passed.push_back(parked->delivery_tag);
        continue;
      }
      AmqpMessage copy = parked->message;
      copy.routing_key = config_.queue;
      copy.expiration.clear();
      std::erase_if(copy.headers, [](const auto& header) {
        return header.first == kParkReasonHeader || header.first == kRetriesHeader;
      });
      PublishConfirmed(copy);
      connection_->Ack(parked->delivery_tag, RequestDeadline());
      replayed.push_back(Describe(*parked));
    }
    if (!passed.empty()) PutBack(passed);
  } catch (const AmqpError& e) {
    throw Lost("replaying parked messages failed", e.what());
  }
  return replayed;
}

void AmqpEventSource::PutBack(const std::vector<std::uint64_t>& passed) {
  const std::int64_t ready = connection_->MessageCount(parked_queue_, RequestDeadline());
  for (const std::uint64_t tag : passed) {
    connection_->Reject(tag, /*requeue=*/true, RequestDeadline());
  }
  // RabbitMQ answers a queue's message count ahead of the requeues it has yet to carry out (the
  // queue process serves the count first); wait until they are counted, so that ParkedCount and
  // the next replay see them. Replays elsewhere may take some meanwhile: then give up waiting.
  const std::int64_t target = ready + static_cast<std::int64_t>(passed.size());
  const auto until = RequestDeadline();
  while (connection_->MessageCount(parked_queue_, RequestDeadline()) < target) {
    if (Clock::now() >= until) {
      spdlog::warn("event source: {} parked messages put back are not all counted in {} yet",
                   passed.size(), parked_queue_);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{1});
  }
}

std::int64_t AmqpEventSource::ParkedCount() {
  Connect();
  try {
    return connection_->MessageCount(parked_queue_, RequestDeadline());
  } catch (const AmqpError& e) {
    throw Lost("counting parked messages failed", e.what());
  }
}

void AmqpEventSource::Connect() {
  if (connection_) return;
  const auto deadline = Clock::now() + config_.connect_timeout;
  try {
    auto connection = std::make_unique<AmqpConnection>(endpoint_, config_.ca_file, deadline);
    connection->ConfirmSelect(deadline);
    DeclareEventTopology(*connection, config_, deadline);
    connection->DeclareQueue(
        retry_queue_, /*durable=*/true, /*exclusive=*/false,
        /*auto_delete=*/false,
        {{"x-dead-letter-exchange", std::string()}, {"x-dead-letter-routing-key", config_.queue}},
        deadline);
    connection->DeclareQueue(parked_queue_, /*durable=*/true, /*exclusive=*/false,
                             /*auto_delete=*/false, {}, deadline);
    connection_ = std::move(connection);
    consuming_ = false;
  } catch (const AmqpError& e) {
    spdlog::debug("event source: connecting to RabbitMQ failed ({})", e.what());
    throw EventSinkUnavailable("RabbitMQ at " + HostPort(endpoint_) +
                               " is unavailable: " + e.what());
  }
  first_handle_ = next_handle_;
  next_publish_tag_ = 1;
  spdlog::info("event source: connected to RabbitMQ at {} (queue {}, prefetch {})",
               HostPort(endpoint_), config_.queue, config_.prefetch);
}

EventSinkUnavailable AmqpEventSource::Lost(const std::string& what, const std::string& why) {
  connection_.reset();
  deliveries_.clear();
  unsettled_.clear();
  first_handle_ = next_handle_;
  spdlog::warn("event source: lost RabbitMQ at {} ({}); unsettled messages go back to the queue",
               HostPort(endpoint_), why);
  return EventSinkUnavailable(what + ": " + why);
}

std::map<std::uint64_t, AmqpEventSource::Unsettled>::iterator AmqpEventSource::Find(
    const ReceivedEvent& message) {
  const std::uint64_t handle = message.delivery_tag;
  if (handle == 0 || handle >= next_handle_) {
    throw std::logic_error("event source: " + std::to_string(handle) +
                           " is not a handle of a received message");
  }
  if (handle < first_handle_) {
    throw EventSinkUnavailable(
        "the connection the message came on is gone; RabbitMQ delivers it again");
  }
  const auto it = unsettled_.find(handle);
  if (it == unsettled_.end()) {
    throw std::logic_error("event source: message " + std::to_string(handle) +
                           " was settled already");
  }
  return it;
}

void AmqpEventSource::Move(std::map<std::uint64_t, Unsettled>::iterator it, const AmqpMessage& copy,
                           std::string_view what) {
  try {
    PublishConfirmed(copy);
    connection_->Ack(it->second.delivery_tag, RequestDeadline());
  } catch (const AmqpError& e) {
    throw Lost(std::string(what) + " failed", e.what());
  }
  unsettled_.erase(it);
}

void AmqpEventSource::PublishConfirmed(const AmqpMessage& message) {
  const auto deadline = Clock::now() + config_.confirm_timeout;
  connection_->Publish("", message, /*mandatory=*/true, deadline);
  const std::uint64_t tag = next_publish_tag_++;
  std::optional<std::string> returned;
  for (;;) {
    auto inbound = connection_->Next(deadline);
    if (!inbound) {
      throw AmqpError("confirm timeout: the broker did not confirm the message for " +
                      message.routing_key + " within " +
                      std::to_string(config_.confirm_timeout.count()) + " ms");
    }
    switch (inbound->kind) {
      case AmqpInbound::Kind::kAck:
      case AmqpInbound::Kind::kNack:
        // One confirm at a time is outstanding: an earlier tag is not this message's.
        if (inbound->delivery_tag != tag && !(inbound->multiple && inbound->delivery_tag > tag)) {
          continue;
        }
        if (inbound->kind == AmqpInbound::Kind::kNack) {
          throw AmqpError("the broker refused (basic.nack) the message for " + message.routing_key);
        }
        if (returned) {
          throw AmqpError("no queue took the message for " + message.routing_key + " (" +
                          *returned + ")");
        }
        return;
      case AmqpInbound::Kind::kReturn:
        returned = inbound->reply;
        break;
      case AmqpInbound::Kind::kDeliver:
        deliveries_.push_back(std::move(*inbound));
        break;
      default:
        Notice(*inbound);
    }
  }
}

ReceivedEvent AmqpEventSource::Describe(const AmqpInbound& delivery) const {
  ReceivedEvent received;
  received.event = DecodeEventBody(delivery.message.body);
  if (!received.event) {
    received.error = "the body is not a docgate event (" +
                     std::to_string(delivery.message.body.size()) + " bytes, content type '" +
                     delivery.message.content_type + "', message_id '" +
                     delivery.message.message_id + "')";
  }
  received.body = delivery.message.body;
  received.redelivered = delivery.redelivered;
  return received;
}

void AmqpEventSource::Notice(const AmqpInbound& inbound) const {
  if (inbound.kind == AmqpInbound::Kind::kBlocked) {
    spdlog::warn("event source: RabbitMQ blocks publishing ({}); retries and parking wait for it",
                 inbound.reply);
  } else if (inbound.kind == AmqpInbound::Kind::kUnblocked) {
    spdlog::info("event source: RabbitMQ takes publishes again");
  }
}

}  // namespace docgate
