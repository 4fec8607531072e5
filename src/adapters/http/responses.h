#pragma once

// The responses built from use case values that several routes give, and the one rendering of an
// idempotent request's outcome (app/idempotent_outcome.h, ADR 0007).

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "adapters/http/dto.h"
#include "adapters/http/http_message.h"
#include "app/idempotent_outcome.h"
#include "app/user_names.h"
#include "core/model.h"

namespace docgate {

// `body` as application/json.
HttpResponse JsonResponse(HttpStatus status, const nlohmann::json& body);
// The document as JSON (with its author's name from `names`) with its version as ETag.
// `source`: an import's answer carries the file the document came from.
HttpResponse DocumentResponse(HttpStatus status, const Document& doc, const NameBook& names,
                              const std::optional<ImportSource>& source = std::nullopt);

// The answer of a POST route: created, 201 with the document, ETag and Location; transitioned,
// 200 {"document", "review"}; refused, the problem of its code with its (stored) detail. The same
// function answers a request without a key, the first request under a key and every replay, so
// the replay of an outcome is the first answer byte for byte, but for the people's names, which
// are looked up in `users` at every answer (a name changed meanwhile is the new one).
HttpResponse OutcomeResponse(const IdempotentOutcome& outcome, const UserNames& users);

// The stored answer again, with `Idempotent-Replayed: true`: an encoded outcome through
// OutcomeResponse, or a record stored before outcomes were (a whole response, idempotency_codec.h
// DecodeResponse) as it was stored. Throws StorageError (an unreadable outcome) or
// std::runtime_error (an unreadable older record), each naming what is wrong.
HttpResponse ReplayResponse(const std::string& stored, const UserNames& users);

}  // namespace docgate
