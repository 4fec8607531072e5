#pragma once

#include <vector>

#include "app/events.h"

namespace docgate {

// The EventSink of the embedded default (no broker): hands each event to every registered
// consumer in registration order. A consumer that throws makes Deliver throw, so the dispatcher
// keeps the event pending and delivers it again later (consumers dedupe by event_id).
// Register all consumers before the dispatcher starts; Deliver is called from one thread.
class InProcessEventSink final : public EventSink {
 public:
  // `consumer` must outlive the sink.
  void Register(EventConsumer& consumer);
  void Deliver(const OutboxEvent& event) override;

 private:
  std::vector<EventConsumer*> consumers_;
};

}  // namespace docgate
