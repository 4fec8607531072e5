#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "adapters/http/http_message.h"
#include "adapters/http/jwt_auth.h"
#include "adapters/http/router.h"
#include "app/document_service.h"
#include "app/reader_service.h"
#include "app/idempotency.h"

namespace docgate {

// What /readyz reports. `database` is required; the others describe optional dependencies:
// "ok", "degraded" (working around an outage) or "disabled" (not configured).
struct HealthChecks {
  std::function<bool()> database;
  std::function<std::string()> lock = [] { return std::string("ok"); };
  std::function<std::string()> broker = [] { return std::string("disabled"); };
  std::function<std::string()> embeddings = [] { return std::string("off"); };
  // What GET /metrics serves: the Prometheus text exposition (format 0.0.4). Unset: no /metrics.
  std::function<std::string()> metrics;
};

class IdempotentEffect;

// The routes of shared/API.md over DocumentService: routing (404 / 405 with Allow), bearer
// authentication for /api/v1, request parsing (400 VALIDATION for every malformed input), the use
// case call, and the mapping of its outcome to a response. This is the HTTP boundary:
// StorageUnavailable becomes 503 UNAVAILABLE with Retry-After, any other exception a logged 500.
// Every POST route honours Idempotency-Key (shared/API.md "Idempotency"): per caller (the token's
// subject) and request fingerprint, the first answer is stored - in the effect's own transaction
// when there is one - and replayed with `Idempotent-Replayed: true`; a different request under the
// key is 422 IDEMPOTENCY_KEY_REUSED, the same one still running 409 IDEMPOTENCY_IN_FLIGHT. Only a
// success or a decision on the state (IsStoredRefusal: 409 INVALID_STATE, 403 SELF_REVIEW, with
// its detail capped by StoredDetail) is stored. No other answer is: a 401 is given before the key
// is read; 400 VALIDATION, 403 FORBIDDEN and 404 NOT_FOUND, refusals of a request not admitted,
// and LOCK_BUSY and 5xx, worth retrying, release the key, so they leave no row and a later
// request under the key runs as if it were the first (not 422). What is stored is the outcome
// (app/idempotent_outcome.h, at most kMaxStoredOutcomeBytes), rendered by OutcomeResponse on the
// first answer and every replay alike; a stored record that cannot be read is a logged 500.
// Thread-safe; the referenced objects must outlive it.
class RestApi {
 public:
  RestApi(DocumentService& service, ReaderService& reader, IdempotencyService& idempotency,
          const JwtVerifier& verifier, HealthChecks health);

  // Never throws. A path that is not valid UTF-8 without U+0000 (CheckPath) is 400 before any
  // route is tried. Notes in `trace` the matched route's template ("unmatched" for a 404) and,
  // once a token is verified, its subject as the caller. Problems speak the request's
  // Accept-Language (localize.h).
  HttpResponse Handle(const HttpRequest& request, RequestTrace& trace) const;
  HttpResponse Handle(const HttpRequest& request) const;

  // The routes served: (verb, path template), e.g. (post, "/api/v1/reviews/{id}/approve").
  std::vector<std::pair<HttpVerb, std::string>> Routes() const { return router_.Routes(); }

 private:
  // Handle before LocalizeProblem: the route's response, problems in English.
  HttpResponse Dispatch(const HttpRequest& request, RequestTrace& trace) const;
  using Handler = Result<HttpResponse> (RestApi::*)(const RouteContext&, const Actor&) const;
  // A POST handler: it passes effect.Hook() to its use case and gives back its outcome, which
  // OutcomeResponse renders (see rest_api.cpp).
  using PostHandler = Result<IdempotentOutcome> (RestApi::*)(const RouteContext&, const Actor&,
                                                             IdempotentEffect& effect) const;
  RouteHandler Authenticated(Handler handler) const;
  // Authenticated, plus the Idempotency-Key protocol.
  RouteHandler Idempotent(PostHandler handler) const;
  Result<Actor> Authenticate(const RouteContext& ctx) const;
  HttpResponse RunIdempotent(const RouteContext& ctx, const Actor& actor, PostHandler handler,
                             std::string_view key) const;

  HttpResponse Healthz(const RouteContext&) const;
  HttpResponse Readyz(const RouteContext&) const;
  HttpResponse Metrics(const RouteContext&) const;
  Result<IdempotentOutcome> CreateDocument(const RouteContext& ctx, const Actor& actor,
                                           IdempotentEffect& effect) const;
  Result<HttpResponse> ListDocuments(const RouteContext& ctx, const Actor& actor) const;
  Result<HttpResponse> GetDocument(const RouteContext& ctx, const Actor& actor) const;
  Result<HttpResponse> EditDocument(const RouteContext& ctx, const Actor& actor) const;
  Result<HttpResponse> GetContent(const RouteContext& ctx, const Actor& actor) const;
  Result<HttpResponse> GetPreview(const RouteContext& ctx, const Actor& actor) const;
  Result<HttpResponse> Search(const RouteContext& ctx, const Actor& actor) const;
  Result<IdempotentOutcome> Submit(const RouteContext& ctx, const Actor& actor,
                                   IdempotentEffect& effect) const;
  Result<IdempotentOutcome> Withdraw(const RouteContext& ctx, const Actor& actor,
                                     IdempotentEffect& effect) const;
  Result<HttpResponse> DocumentReviews(const RouteContext& ctx, const Actor& actor) const;
  Result<HttpResponse> DocumentVersions(const RouteContext& ctx, const Actor& actor) const;
  Result<HttpResponse> GetVersion(const RouteContext& ctx, const Actor& actor) const;
  Result<HttpResponse> ReviewQueue(const RouteContext& ctx, const Actor& actor) const;
  Result<HttpResponse> GetReview(const RouteContext& ctx, const Actor& actor) const;
  Result<IdempotentOutcome> Approve(const RouteContext& ctx, const Actor& actor,
                                    IdempotentEffect& effect) const;
  Result<IdempotentOutcome> Reject(const RouteContext& ctx, const Actor& actor,
                                   IdempotentEffect& effect) const;

  DocumentService& service_;
  ReaderService& reader_;
  IdempotencyService& idempotency_;
  const JwtVerifier& verifier_;
  HealthChecks health_;
  Router router_;
};

}  // namespace docgate
