#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "adapters/http/http_message.h"
#include "adapters/http/jwt_auth.h"
#include "adapters/http/router.h"
#include "app/document_service.h"

namespace docgate {

// What /readyz reports. `database` is required; the others describe optional dependencies:
// "ok", "degraded" (working around an outage) or "disabled" (not configured).
struct HealthChecks {
  std::function<bool()> database;
  std::function<std::string()> lock = [] { return std::string("ok"); };
  std::function<std::string()> broker = [] { return std::string("disabled"); };
};

// The routes of shared/API.md over DocumentService: routing (404 / 405 with Allow), bearer
// authentication for /api/v1, request parsing (400 VALIDATION for every malformed input), the use
// case call, and the mapping of its outcome to a response. This is the HTTP boundary: StorageUnavailable
// becomes 503 UNAVAILABLE with Retry-After, any other exception a logged 500.
// Thread-safe; the referenced objects must outlive it.
class RestApi {
 public:
  RestApi(DocumentService& service, const JwtVerifier& verifier, HealthChecks health);

  // Never throws.
  HttpResponse Handle(const HttpRequest& request) const;

  // The routes served: (verb, path template), e.g. (post, "/api/v1/reviews/{id}/approve").
  std::vector<std::pair<HttpVerb, std::string>> Routes() const { return router_.Routes(); }

 private:
  using Handler = Result<HttpResponse> (RestApi::*)(const RouteContext&, const Actor&) const;
  RouteHandler Authenticated(Handler handler) const;

  HttpResponse Healthz(const RouteContext&) const;
  HttpResponse Readyz(const RouteContext&) const;
  Result<HttpResponse> CreateDocument(const RouteContext& ctx, const Actor& actor) const;
  Result<HttpResponse> ListDocuments(const RouteContext& ctx, const Actor& actor) const;
  Result<HttpResponse> GetDocument(const RouteContext& ctx, const Actor& actor) const;
  Result<HttpResponse> EditDocument(const RouteContext& ctx, const Actor& actor) const;
  Result<HttpResponse> GetContent(const RouteContext& ctx, const Actor& actor) const;
  Result<HttpResponse> GetPreview(const RouteContext& ctx, const Actor& actor) const;
  Result<HttpResponse> Submit(const RouteContext& ctx, const Actor& actor) const;
  Result<HttpResponse> Withdraw(const RouteContext& ctx, const Actor& actor) const;
  Result<HttpResponse> DocumentReviews(const RouteContext& ctx, const Actor& actor) const;
  Result<HttpResponse> ReviewQueue(const RouteContext& ctx, const Actor& actor) const;
  Result<HttpResponse> GetReview(const RouteContext& ctx, const Actor& actor) const;
  Result<HttpResponse> Approve(const RouteContext& ctx, const Actor& actor) const;
  Result<HttpResponse> Reject(const RouteContext& ctx, const Actor& actor) const;

  DocumentService& service_;
  const JwtVerifier& verifier_;
  HealthChecks health_;
  Router router_;
};

}  // namespace docgate
