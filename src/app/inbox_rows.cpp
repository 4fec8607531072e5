#include "app/inbox_rows.h"

#include <algorithm>
#include <set>
#include <string>
#include <tuple>

#include "core/error.h"

namespace docgate {

InboxState ParseClaimedState(std::string_view state, std::string_view store) {
  if (state == "done") return InboxState::kDone;
  if (state == "parked") return InboxState::kParked;
  throw StorageError(std::string(store) + ": inbox state '" + std::string(state) +
                     "' after a claim that wrote nothing");
}

std::vector<OutboxEvent> OldestParkedFirstOnce(
    std::vector<std::pair<TimePoint, OutboxEvent>> rows) {
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first, a.second.event_id) < std::tie(b.first, b.second.event_id);
  });
  std::vector<OutboxEvent> events;
  std::set<std::string> seen;
  for (auto& [parked_at, event] : rows) {
    if (seen.insert(event.event_id).second) events.push_back(std::move(event));
  }
  return events;
}

}  // namespace docgate
