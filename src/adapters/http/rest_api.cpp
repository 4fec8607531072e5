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
                 UserNames& users, const JwtVerifier& verifier, HealthChecks health,
                 ConsoleSignIn sign_in, const DocumentImporter* importer)
    : guard_(verifier, idempotency, users, sign_in.sessions),
      documents_(service, reader, users, importer),
      reviews_(service, users),
      search_(reader),
      users_(users),
      operations_(std::move(health)),
      auth_(std::move(sign_in), users) {
  operations_.AddTo(router_);
  auth_.AddTo(router_);
  AddConsoleRoutes(router_);
  documents_.AddTo(router_, guard_);
  reviews_.AddTo(router_, guard_);
  search_.AddTo(router_, guard_);
  users_.AddTo(router_, guard_);
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

namespace {

// Every route under /api/ is behind RouteGuard (the routes' AddTo); the others (the operations
// routes, the console) are open.
bool NeedsToken(std::string_view pattern) { return pattern.starts_with("/api/"); }

}  // namespace

std::optional<HttpResponse> RestApi::Screen(const HttpRequestHeader& header,
                                            RequestTrace& trace) const {
  auto routed = Route(header, trace);
  std::optional<HttpResponse> answer;
  if (auto* problem = std::get_if<HttpResponse>(&routed)) {
    answer = std::move(*problem);
  } else if (NeedsToken(std::get<Router::Match>(routed).pattern)) {
    if (auto admitted = guard_.Prescreen(header); !admitted) {
      answer = ProblemResponse(admitted.error());
    }
  }
  if (answer) {
    LocalizeProblem(*answer, PreferredLanguage(View(header[http::field::accept_language])));
  }
  return answer;
}

std::variant<Router::Match, HttpResponse> RestApi::Route(const HttpRequestHeader& header,
                                                         RequestTrace& trace) const {
  const auto path = TargetPath(View(header.target()));
  if (auto checked = CheckPath(path); !checked) return ProblemResponse(checked.error());
  auto match = router_.Find(header.method(), path);
  if (!match.pattern.empty()) trace.route = match.pattern;
  switch (match.kind) {
    case Router::Match::Kind::kFound:
      return match;
    case Router::Match::Kind::kMethodNotAllowed:
      return MethodNotAllowed(match.allow);
    case Router::Match::Kind::kNotFound:
      break;
  }
  return ProblemResponse(MakeError(ErrorCode::kNotFound, "no route for " + std::string(path)));
}

HttpResponse RestApi::Dispatch(const HttpRequest& request, RequestTrace& trace) const {
  try {
    auto routed = Route(request, trace);
    if (auto* problem = std::get_if<HttpResponse>(&routed)) return std::move(*problem);
    const auto& match = std::get<Router::Match>(routed);
    return (*match.handler)(RouteContext{request, match.params, &trace});
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
