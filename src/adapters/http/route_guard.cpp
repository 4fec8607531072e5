#include "adapters/http/route_guard.h"

#include <utility>

#include "adapters/http/error_mapper.h"
#include "adapters/http/request_params.h"
#include "adapters/http/sign_in_cookies.h"

namespace docgate {

namespace http = boost::beast::http;

namespace {

Error SessionEnded() {
  return MakeError(ErrorCode::kUnauthenticated,
                   "the console's session has ended or expired: sign in again");
}

}  // namespace

std::optional<std::string> RouteGuard::SessionCookie(const HttpRequestHeader& header) const {
  if (sessions_ == nullptr || header.find(http::field::authorization) != header.end()) {
    return std::nullopt;
  }
  return CookieValue(header, kSessionCookie);
}

Result<Actor> RouteGuard::Authenticate(const HttpRequestHeader& header) const {
  if (const std::optional<std::string> cookie = SessionCookie(header)) {
    const std::optional<SessionRecord> session = sessions_->Find(*cookie);
    if (!session) return SessionEnded();
    const HttpVerb method = header.method();
    if (method != HttpVerb::get && method != HttpVerb::head &&
        !CsrfMatches(header, *session, *sessions_)) {
      return MakeError(ErrorCode::kForbidden, CsrfRefusal());
    }
    return ConsoleSessions::ActorOf(*session);
  }
  return Bearer(header);
}

Result<Actor> RouteGuard::Bearer(const HttpRequestHeader& header) const {
  const auto authorization = header.find(http::field::authorization);
  return verifier_.Authenticate(authorization == header.end() ? std::string_view{}
                                                              : View(authorization->value()));
}

Status RouteGuard::Prescreen(const HttpRequestHeader& header) const {
  if (const std::optional<std::string> cookie = SessionCookie(header)) {
    if (ConsoleSessions::LooksLikeId(*cookie)) return Ok{};
    return SessionEnded();
  }
  Result<Actor> actor = Bearer(header);
  if (!actor) return actor.error();
  return Ok{};
}

Result<Actor> RouteGuard::Admit(const RouteContext& ctx) const {
  auto actor = Authenticate(ctx.request);
  if (!actor) return actor;
  if (ctx.trace != nullptr) ctx.trace->caller = actor->id;
  users_.Saw(*actor);
  return actor;
}

RouteHandler RouteGuard::Authenticated(ReadHandler handler) const {
  return [this, handler = std::move(handler)](const RouteContext& ctx) -> HttpResponse {
    auto actor = Admit(ctx);
    if (!actor) return ProblemResponse(actor.error());
    auto response = handler(ctx, *actor);
    if (!response) return ProblemResponse(response.error());
    return std::move(response).value();
  };
}

RouteHandler RouteGuard::Idempotent(EffectHandler handler) const {
  return [this, handler = std::move(handler)](const RouteContext& ctx) -> HttpResponse {
    auto actor = Admit(ctx);
    if (!actor) return ProblemResponse(actor.error());
    return idempotency_.Run(ctx, *actor, handler);
  };
}

}  // namespace docgate
