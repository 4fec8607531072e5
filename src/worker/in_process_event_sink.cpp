#include "worker/in_process_event_sink.h"

namespace docgate {

void InProcessEventSink::Register(EventConsumer& consumer) { consumers_.push_back(&consumer); }

void InProcessEventSink::Deliver(const OutboxEvent& event) {
  for (EventConsumer* consumer : consumers_) consumer->Handle(event);
}

}  // namespace docgate
