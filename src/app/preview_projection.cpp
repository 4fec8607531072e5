#include "app/preview_projection.h"

#include <string>

#include "core/error.h"

namespace docgate {

void PreviewProjection::Handle(const OutboxEvent& event, ConsumerTransaction& tx) {
  if (event.type != EventType::kApproved) return;
  auto content = tx.ReadContent(event.document_id, event.version);
  if (!content) {
    throw StorageError("document " + std::to_string(event.document_id) + " has no content for " +
                       "approved version " + std::to_string(event.version));
  }
  previews_.Project(tx, PreviewRecord{event.document_id, event.version, std::move(*content),
                                      event.occurred_at});
}

}  // namespace docgate
