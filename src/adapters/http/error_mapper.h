#pragma once

// The one table from core ErrorCode to HTTP status (shared/API.md), and the RFC 9457
// `application/problem+json` responses built from it:
//   {"type": "urn:docgate:problem:<code>", "title": ..., "status": ..., "detail": ..., "code": ...}
// LOCK_BUSY, IDEMPOTENCY_IN_FLIGHT and UNAVAILABLE carry `Retry-After` (whole seconds, >= 1);
// UNAUTHENTICATED carries `WWW-Authenticate: Bearer`.

#include <string>
#include <string_view>

#include "adapters/http/http_message.h"
#include "core/error.h"

namespace docgate {

HttpStatus HttpStatusOf(ErrorCode code);

HttpResponse ProblemResponse(const Error& error);

// Problems outside the core's codes: 405 (METHOD_NOT_ALLOWED) and 500 (INTERNAL).
HttpResponse MethodNotAllowed(std::string_view allow);
HttpResponse InternalError();

}  // namespace docgate
