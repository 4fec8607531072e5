#pragma once

#include <vector>

#include "app/ports/event_consumer.h"
#include "app/ports/event_sink.h"

namespace docgate {

// The EventSink of the embedded default (no broker): hands each event to every registered
// consumer in registration order. An event on which a consumer throws is kFailed (the relay
// retries it later; consumers dedupe by event_id) and the batch goes on with the next event, which
// belongs to another document. Register all consumers before the relay starts; Deliver is called
// from one thread.
class InProcessEventSink final : public EventSink {
 public:
  // `consumer` must outlive the sink.
  void Register(EventConsumer& consumer);
  std::vector<DeliveryOutcome> Deliver(std::span<const OutboxEvent> events) override;

 private:
  std::vector<EventConsumer*> consumers_;
};

}  // namespace docgate
