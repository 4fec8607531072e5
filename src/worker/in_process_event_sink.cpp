#include "worker/in_process_event_sink.h"

#include <spdlog/spdlog.h>

#include <exception>

namespace docgate {

void InProcessEventSink::Register(EventConsumer& consumer) { consumers_.push_back(&consumer); }

std::vector<DeliveryOutcome> InProcessEventSink::Deliver(std::span<const OutboxEvent> events) {
  std::vector<DeliveryOutcome> outcomes;
  outcomes.reserve(events.size());
  for (const OutboxEvent& event : events) {
    DeliveryOutcome outcome = DeliveryOutcome::kDelivered;
    for (EventConsumer* consumer : consumers_) {
      try {
        consumer->Handle(event);
      } catch (const std::exception& e) {
        // The consumer loop's boundary: the event is retried later, the others go on.
        spdlog::warn("consumer {} failed on event {}: {}", consumer->Name(), event.event_id,
                     e.what());
        outcome = DeliveryOutcome::kFailed;
        break;
      }
    }
    outcomes.push_back(outcome);
  }
  return outcomes;
}

}  // namespace docgate
