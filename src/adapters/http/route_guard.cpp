#include "adapters/http/route_guard.h"

#include <utility>

#include "adapters/http/error_mapper.h"
#include "adapters/http/request_params.h"

namespace docgate {

namespace http = boost::beast::http;

Result<Actor> RouteGuard::Authenticate(const HttpRequestHeader& header) const {
  const auto authorization = header.find(http::field::authorization);
  return verifier_.Authenticate(authorization == header.end() ? std::string_view{}
                                                              : View(authorization->value()));
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
