#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "adapters/http/auth_routes.h"
#include "adapters/http/document_routes.h"
#include "adapters/http/http_message.h"
#include "adapters/http/jwt_auth.h"
#include "adapters/http/operation_routes.h"
#include "adapters/http/review_routes.h"
#include "adapters/http/route_guard.h"
#include "adapters/http/router.h"
#include "adapters/http/search_routes.h"
#include "adapters/http/user_routes.h"
#include "app/document_service.h"
#include "app/idempotency.h"
#include "app/reader_service.h"

namespace docgate {

// The routes of shared/API.md, by group: documents, reviews and search under /api/v1 (each route
// authenticated by its bearer token, and the POST routes under the Idempotency-Key protocol:
// route_guard.h, idempotency_middleware.h), the operations routes and the console's assets. This
// is the HTTP boundary: routing (404 / 405 with Allow, 400 for a path that is not valid UTF-8),
// StorageUnavailable as 503 UNAVAILABLE with Retry-After, any other exception a logged 500, and
// every problem in the request's language. A new route goes into its group's AddTo (a new group
// into the constructor). Thread-safe; the referenced objects must outlive it.
class RestApi {
 public:
  RestApi(DocumentService& service, ReaderService& reader, IdempotencyService& idempotency,
          UserNames& users, const JwtVerifier& verifier, HealthChecks health,
          ConsoleSignIn sign_in = {}, const DocumentImporter* importer = nullptr);

  // Never throws. A path that is not valid UTF-8 without U+0000 (CheckPath) is 400 before any
  // route is tried. Notes in `trace` the matched route's template ("unmatched" for a 404) and,
  // once a token is verified, its subject as the caller. Problems speak the request's
  // Accept-Language (localize.h).
  HttpResponse Handle(const HttpRequest& request, RequestTrace& trace) const;
  HttpResponse Handle(const HttpRequest& request) const;

  // The answer a request's header alone decides, exactly as Handle would give it, or nullopt to
  // read the body and Handle the request: 400 for a bad path, 404, 405, and 401 for a route of
  // /api/ without a valid bearer token. The HTTP server asks before reading a body
  // (RequestScreen), so that no unauthenticated client has a body read or takes a worker. Cheap
  // (no store is asked), never blocks, never throws; notes the route in `trace`.
  std::optional<HttpResponse> Screen(const HttpRequestHeader& header, RequestTrace& trace) const;

  // The routes served: (verb, path template), e.g. (post, "/api/v1/reviews/{id}/approve").
  std::vector<std::pair<HttpVerb, std::string>> Routes() const { return router_.Routes(); }

 private:
  // The route of a request, or the problem that it has none (a bad path, 404, 405).
  std::variant<Router::Match, HttpResponse> Route(const HttpRequestHeader& header,
                                                  RequestTrace& trace) const;
  // Handle before LocalizeProblem: the route's response, problems in English.
  HttpResponse Dispatch(const HttpRequest& request, RequestTrace& trace) const;

  RouteGuard guard_;
  DocumentRoutes documents_;
  ReviewRoutes reviews_;
  SearchRoutes search_;
  UserRoutes users_;
  OperationRoutes operations_;
  AuthRoutes auth_;
  Router router_;
};

}  // namespace docgate
