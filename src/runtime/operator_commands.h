#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/ports/inbox_store.h"
#include "runtime/config.h"

namespace docgate {

// The one-shot commands an operator runs next to the serving processes. Each opens the configured
// database (and broker) itself, does its work and returns; they throw what the stores and the
// broker throw (StorageUnavailable, EventSinkUnavailable) and ConfigError.

// `docgate events parked`: the events consumers gave up on, oldest parked first.
std::vector<ParkedEvent> ListParkedEvents(const Config& config, int limit);

struct ReplayReport {
  int unparked = 0;    // events whose parked consumers will run again
  int from_queue = 0;  // messages moved back from the broker's parking queue to its consumers queue
  int requeued = 0;    // events put back into the outbox for the relay to deliver again
};

// `docgate events replay [--event-id ID]`: un-parks the parked events (all, or one) so that their
// consumers run again, then delivers them again: with a broker, the parking queue's messages go
// back to the consumers queue, and an un-parked event with no message there (the parking queue was
// purged) is re-enqueued through the outbox; without one, every un-parked event is re-enqueued
// through the outbox, which the serving process's relay delivers in process. The inbox is cleared
// first, so a replayed message never meets its old parked state.
ReplayReport ReplayParkedEvents(const Config& config, const std::optional<std::string>& event_id);

// `docgate reconcile`: one reconciler round (stuck_after from the config); returns how many
// approval events were re-enqueued.
int ReconcileOnce(const Config& config);

}  // namespace docgate
