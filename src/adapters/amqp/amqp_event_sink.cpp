#include "adapters/amqp/amqp_event_sink.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <utility>

#include "adapters/amqp/amqp_connection.h"
#include "adapters/amqp/amqp_topology.h"
#include "adapters/amqp/event_message.h"

namespace docgate {
namespace {

AmqpMessage MessageFor(const OutboxEvent& event) {
  AmqpMessage message;
  message.routing_key = std::string(ToString(event.type));
  message.message_id = event.event_id;
  message.content_type = "application/json";
  message.type = message.routing_key;
  message.delivery_mode = 2;  // persistent
  const auto seconds = std::chrono::floor<std::chrono::seconds>(event.occurred_at);
  message.timestamp =
      static_cast<std::uint64_t>(std::max<std::int64_t>(seconds.time_since_epoch().count(), 0));
  message.body = EncodeEventBody(event);
  return message;
}

// The confirms of one published batch, whose delivery tags are first_tag, first_tag + 1, ...
class BatchConfirms {
 public:
  BatchConfirms(std::span<const OutboxEvent> events, std::uint64_t first_tag)
      : events_(events),
        first_tag_(first_tag),
        settled_(events.size()),
        returned_(events.size(), false),
        open_(events.size()) {}

  std::size_t open() const { return open_; }

  // An ack or nack of `tag`, or of every tag up to it when `multiple` (all of them for tag 0).
  void Settle(std::uint64_t tag, bool multiple, DeliveryOutcome outcome) {
    const std::uint64_t end = first_tag_ + events_.size();
    const std::uint64_t from = multiple ? first_tag_ : tag;
    const std::uint64_t to = multiple && tag == 0 ? end - 1 : tag;
    for (std::uint64_t t = std::max(from, first_tag_); t <= to && t < end; ++t) {
      auto& slot = settled_[t - first_tag_];
      if (slot) continue;
      slot = outcome;
      --open_;
    }
  }

  // A basic.return, which comes before its message's confirm: found by message_id among the
  // unsettled events, else (no or an unknown id) the earliest unsettled one, as returns and
  // confirms come in publish order.
  void Returned(const std::string& message_id) {
    std::optional<std::size_t> earliest;
    for (std::size_t i = 0; i < events_.size(); ++i) {
      if (settled_[i] || returned_[i]) continue;
      if (events_[i].event_id == message_id) {
        returned_[i] = true;
        return;
      }
      if (!earliest) earliest = i;
    }
    if (earliest) returned_[*earliest] = true;
  }

  std::vector<DeliveryOutcome> Outcomes() const {
    std::vector<DeliveryOutcome> outcomes;
    outcomes.reserve(events_.size());
    for (std::size_t i = 0; i < events_.size(); ++i) {
      outcomes.push_back(returned_[i] ? DeliveryOutcome::kReturned : *settled_[i]);
    }
    return outcomes;
  }

 private:
  std::span<const OutboxEvent> events_;
  std::uint64_t first_tag_;
  std::vector<std::optional<DeliveryOutcome>> settled_;
  std::vector<bool> returned_;
  std::size_t open_;
};

}  // namespace

AmqpEventSink::AmqpEventSink(AmqpConfig config)
    : config_(std::move(config)),
      endpoint_(ValidatedEndpoint(config_)),
      backoff_(config_.reconnect_initial) {
  if (!EnsureConnected()) {
    spdlog::warn(
        "event sink: RabbitMQ at {} is unreachable ({}); starting degraded, events stay "
        "in the outbox until it is back",
        HostPort(endpoint_), last_error_);
  }
}

AmqpEventSink::~AmqpEventSink() {
  if (connection_) connection_->Close(Clock::now() + config_.connect_timeout);
}

std::vector<DeliveryOutcome> AmqpEventSink::Deliver(std::span<const OutboxEvent> events) {
  if (events.empty()) return {};
  if (!EnsureConnected()) {
    throw EventSinkUnavailable("RabbitMQ at " + HostPort(endpoint_) +
                               " is unavailable: " + last_error_);
  }
  try {
    return PublishAndConfirm(events);
  } catch (const AmqpError& e) {
    Lost(e.what());
    throw EventSinkUnavailable(std::string("delivering events to RabbitMQ failed: ") + e.what());
  }
}

void AmqpEventSink::Maintain() {
  if (!connection_) {
    EnsureConnected();
    return;
  }
  try {
    // A deadline of now polls: whatever the broker sent is handled, nothing is waited for.
    while (const auto inbound = connection_->Next(Clock::now())) Notice(*inbound);
  } catch (const AmqpError& e) {
    Lost(e.what());
  }
}

std::string AmqpEventSink::State() const { return connected_.load() ? "ok" : "degraded"; }

bool AmqpEventSink::EnsureConnected() {
  if (connection_) return true;
  const auto now = Clock::now();
  if (now < next_attempt_) return false;
  const auto deadline = now + config_.connect_timeout;
  try {
    auto connection = std::make_unique<AmqpConnection>(endpoint_, config_.ca_file, deadline);
    connection->ConfirmSelect(deadline);
    DeclareEventTopology(*connection, config_, deadline);
    connection_ = std::move(connection);
  } catch (const AmqpError& e) {
    ++failures_;
    last_error_ = e.what();
    next_attempt_ = Clock::now() + backoff_;
    backoff_ = std::min(backoff_ * 2, config_.reconnect_max);
    spdlog::debug("event sink: connecting to RabbitMQ failed ({}); next attempt in {} ms",
                  last_error_, (next_attempt_ - Clock::now()) / std::chrono::milliseconds{1});
    return false;
  }
  next_delivery_tag_ = 1;
  backoff_ = config_.reconnect_initial;
  ++connects_;
  connected_ = true;
  spdlog::info("event sink: connected to RabbitMQ at {} (exchange {}{}{})", HostPort(endpoint_),
               config_.exchange, config_.queue.empty() ? "" : ", queue ", config_.queue);
  return true;
}

void AmqpEventSink::Lost(const std::string& why) {
  connection_.reset();
  connected_ = false;
  ++failures_;
  last_error_ = why;
  // The first attempt to reconnect may come at once: the broker was there a moment ago.
  next_attempt_ = Clock::now();
  backoff_ = config_.reconnect_initial;
  spdlog::warn("event sink: lost RabbitMQ at {} ({}); degraded until it is back",
               HostPort(endpoint_), why);
}

std::vector<DeliveryOutcome> AmqpEventSink::PublishAndConfirm(std::span<const OutboxEvent> events) {
  const auto deadline = Clock::now() + config_.confirm_timeout;
  BatchConfirms confirms(events, next_delivery_tag_);
  for (const auto& event : events) {
    connection_->Publish(config_.exchange, MessageFor(event), /*mandatory=*/true, deadline);
    ++next_delivery_tag_;
  }
  while (confirms.open() > 0) {
    const auto inbound = connection_->Next(deadline);
    if (!inbound) {
      throw AmqpError("confirm timeout: the broker confirmed " +
                      std::to_string(events.size() - confirms.open()) + " of " +
                      std::to_string(events.size()) + " events within " +
                      std::to_string(config_.confirm_timeout.count()) + " ms");
    }
    switch (inbound->kind) {
      case AmqpInbound::Kind::kAck:
        confirms.Settle(inbound->delivery_tag, inbound->multiple, DeliveryOutcome::kDelivered);
        break;
      case AmqpInbound::Kind::kNack:
        confirms.Settle(inbound->delivery_tag, inbound->multiple, DeliveryOutcome::kNacked);
        break;
      case AmqpInbound::Kind::kReturn:
        confirms.Returned(inbound->message.message_id);
        break;
      default:
        Notice(*inbound);
    }
  }
  auto outcomes = confirms.Outcomes();
  published_ += std::ranges::count(outcomes, DeliveryOutcome::kDelivered);
  returned_ += std::ranges::count(outcomes, DeliveryOutcome::kReturned);
  nacked_ += std::ranges::count(outcomes, DeliveryOutcome::kNacked);
  return outcomes;
}

void AmqpEventSink::Notice(const AmqpInbound& inbound) {
  if (inbound.kind == AmqpInbound::Kind::kBlocked) {
    spdlog::warn("event sink: RabbitMQ blocks publishing ({}); deliveries wait for it or time out",
                 inbound.reply);
  } else if (inbound.kind == AmqpInbound::Kind::kUnblocked) {
    spdlog::info("event sink: RabbitMQ takes publishes again");
  }
}

}  // namespace docgate
