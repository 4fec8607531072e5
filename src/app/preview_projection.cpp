#include "app/preview_projection.h"

#include <utility>

namespace docgate {

void PreviewProjection::Prepare(const OutboxEvent &event) {
  if (event.type != EventType::kApproved) return;
  // A stale event (its version is no longer the approved one) must not publish that version.
  auto approved =
      ApprovedByEvent(documents_.FindDocumentWithContent(event.document_id, event.version), event);
  if (!approved) return;
  previews_.Project(PreviewRecord{event.document_id, event.version, std::move(*approved->content),
                                  event.occurred_at});
}

}  // namespace docgate
