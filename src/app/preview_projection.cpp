#include "app/preview_projection.h"

#include "core/error.h"

namespace docgate {

void PreviewProjection::Prepare(const OutboxEvent &event) {
  if (event.type != EventType::kApproved) return;
  // A stale event (its version is no longer the approved one) must not publish
  // that version.
  const auto doc = documents_.FindDocument(event.document_id);
  if (!doc || doc->approved_version != event.version)
    return;
  auto content = documents_.FindContent(event.document_id, event.version);
  if (!content) {
    throw StorageError("document " + std::to_string(event.document_id) +
                       " has no content for version " +
                       std::to_string(event.version));
  }
  previews_.Project(PreviewRecord{event.document_id, event.version,
                                  std::move(*content), event.occurred_at});
}

}  // namespace docgate
