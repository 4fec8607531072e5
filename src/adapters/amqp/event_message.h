#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/model.h"

namespace docgate {

// The body of an event message on the broker (shared/API.md "Events"), one JSON object:
// {"event_id": "<uuid>", "type": "document.approved", "document_id": "17", "review_id": "40",
//  "version": 3, "actor_id": "bob", "occurred_at": "2026-11-29T14:00:00.123Z"}
// Ids are decimal strings, version a number, occurred_at in FormatTime's form. The review events
// add "reviewer_id" (review.assigned, review.voted) or "comment_id" (review.commented, a decimal
// string), present only when the event has them. The outbox `sequence` is docgate's own and is
// not sent.
std::string EncodeEventBody(const OutboxEvent& event);

// The inverse of EncodeEventBody: nullopt for anything that is not such an object (bad JSON, a NUL
// byte anywhere included, a field missing or of the wrong type, an unknown type, an id that is not
// a non-negative decimal int64, a version outside int32, a time not in FormatTime's form, an empty
// event_id, a reviewer_id that is not a string or a comment_id that is not a decimal id). Fields
// beyond these are ignored, so that producers may add some. `sequence` is left 0.
std::optional<OutboxEvent> DecodeEventBody(std::string_view body);

}  // namespace docgate
