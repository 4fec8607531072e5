#include "adapters/http/rest_api.h"

#include <spdlog/spdlog.h>

#include <exception>
#include <string>

#include "adapters/http/console.h"
#include "adapters/http/error_mapper.h"
#include "adapters/http/localize.h"
#include "adapters/http/request_params.h"
#include "core/utf8.h"

namespace docgate {

namespace http = boost::beast::http;

RestApi::RestApi(DocumentService& service, ReaderService& reader, IdempotencyService& idempotency,
                 const JwtVerifier& verifier, HealthChecks health)
    : guard_(verifier, idempotency),
      documents_(service, reader),
      reviews_(service),
      search_(reader),
      operations_(std::move(health)) {
  operations_.AddTo(router_);
  AddConsoleRoutes(router_);
  documents_.AddTo(router_, guard_);
  reviews_.AddTo(router_, guard_);
  search_.AddTo(router_, guard_);
}

HttpResponse RestApi::Handle(const HttpRequest& request) const {
  RequestTrace trace;
  return Handle(request, trace);
}

HttpResponse RestApi::Handle(const HttpRequest& request, RequestTrace& trace) const {
  HttpResponse response = Dispatch(request, trace);
  LocalizeProblem(response, PreferredLanguage(View(request[http::field::accept_language])));
  return response;
}

HttpResponse RestApi::Dispatch(const HttpRequest& request, RequestTrace& trace) const {
  try {
    const auto path = TargetPath(View(request.target()));
    if (auto checked = CheckPath(path); !checked) return ProblemResponse(checked.error());
    const auto match = router_.Find(request.method(), path);
    if (!match.pattern.empty()) trace.route = match.pattern;
    switch (match.kind) {
      case Router::Match::Kind::kFound:
        return (*match.handler)(RouteContext{request, match.params, &trace});
      case Router::Match::Kind::kMethodNotAllowed:
        return MethodNotAllowed(match.allow);
      case Router::Match::Kind::kNotFound:
        break;
    }
    return ProblemResponse(MakeError(ErrorCode::kNotFound, "no route for " + std::string(path)));
  } catch (const StorageUnavailable& e) {
    spdlog::warn("{} {}: database unavailable: {}", View(request.method_string()),
                 EscapeForLog(TargetPath(View(request.target()))), e.what());
    return ProblemResponse(Error{ErrorCode::kUnavailable, "the database is unavailable", 1});
  } catch (const std::exception& e) {
    spdlog::error("{} {}: unhandled error: {}", View(request.method_string()),
                  EscapeForLog(TargetPath(View(request.target()))), e.what());
    return InternalError();
  }
}

}  // namespace docgate
