#include "app/preview_projection.h"

namespace docgate {

void PreviewProjection::Handle(const OutboxEvent& event, ConsumerTransaction& tx) {
  if (event.type != EventType::kApproved) return;
  previews_.Project(tx, PreviewRecord{event.document_id, event.version, ContentOf(tx, event),
                                      event.occurred_at});
}

}  // namespace docgate
