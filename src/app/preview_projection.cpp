#include "app/preview_projection.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "app/consumer_runner.h"

namespace docgate {

void PreviewProjection::Prepare(const OutboxEvent& event) { PrepareAll(std::span(&event, 1)); }

void PreviewProjection::PrepareAll(std::span<const OutboxEvent> events) {
  std::vector<const OutboxEvent*> approvals;
  std::vector<std::pair<DocumentId, std::int32_t>> wanted;
  for (const OutboxEvent& event : events) {
    if (event.type != EventType::kApproved) continue;
    approvals.push_back(&event);
    wanted.emplace_back(event.document_id, event.version);
  }
  if (approvals.empty()) return;
  auto found = documents_.FindDocumentsWithContent(wanted);
  std::vector<PreviewRecord> records;
  for (std::size_t i = 0; i < approvals.size(); ++i) {
    const OutboxEvent& event = *approvals[i];
    // A stale event (its version is no longer the approved one) must not publish that version.
    auto approved = ApprovedByEvent(std::move(found[i]), event);
    if (!approved) continue;
    records.push_back(PreviewRecord{event.document_id, event.version, std::move(*approved->content),
                                    event.occurred_at});
  }
  previews_.ProjectAll(records);
}

}  // namespace docgate
