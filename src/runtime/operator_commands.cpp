#include "runtime/operator_commands.h"

#include <set>

#include "adapters/amqp/amqp_event_source.h"
#include "app/system_clock.h"
#include "runtime/open_stores.h"
#include "worker/reconciler.h"

namespace docgate {

std::vector<ParkedEvent> ListParkedEvents(const Config& config, int limit) {
  return OpenStores(config).inbox->ListParked(limit);
}

ReplayReport ReplayParkedEvents(const Config& config, const std::optional<std::string>& event_id) {
  const Stores stores = OpenStores(config);
  ReplayReport report;
  const std::vector<OutboxEvent> unparked = stores.inbox->Unpark(event_id);
  report.unparked = static_cast<int>(unparked.size());
  std::set<std::string> moved;
  if (!config.amqp.url.empty()) {
    AmqpEventSource source(config.amqp);
    constexpr int kAll = 1 << 30;
    for (const ReceivedEvent& message : source.ReplayParked(event_id, kAll)) {
      if (message.event) moved.insert(message.event->event_id);
      ++report.from_queue;
    }
  }
  for (const OutboxEvent& event : unparked) {
    if (moved.contains(event.event_id)) continue;
    stores.outbox->Requeue(event);
    ++report.requeued;
  }
  return report;
}

int ReconcileOnce(const Config& config) {
  const Stores stores = OpenStores(config);
  SystemClock clock;
  Reconciler reconciler(*stores.outbox, clock, nullptr, config.consumers.reconciler);
  return reconciler.RunOnce();
}

}  // namespace docgate
