#pragma once

#include <string_view>
#include <utility>
#include <vector>

#include "app/ports/consumer_transaction.h"
#include "core/model.h"

namespace docgate {

// Helpers the InboxStore implementations share, so that they answer alike.

// What Claim reports for an inbox row it did not write: `state` is the stored spelling, 'done' or
// 'parked'. Throws StorageError naming `store` for anything else.
InboxState ParseClaimedState(std::string_view state, std::string_view store);

// Unpark's answer from the deleted rows, each (parked_at, event): the events oldest parked first
// (ties by event_id), each event_id once.
std::vector<OutboxEvent> OldestParkedFirstOnce(std::vector<std::pair<TimePoint, OutboxEvent>> rows);

}  // namespace docgate
