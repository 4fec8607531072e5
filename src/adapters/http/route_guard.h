#pragma once

// What a route of /api/v1 opts into: its caller authenticated from the bearer token, and for a
// POST route the Idempotency-Key protocol (idempotency_middleware.h) around its effect.

#include <functional>

#include "adapters/http/http_message.h"
#include "adapters/http/idempotency_middleware.h"
#include "adapters/http/jwt_auth.h"
#include "adapters/http/router.h"
#include "core/model.h"

namespace docgate {

// A route without an effect to replay: its response, or the problem to answer.
using ReadHandler = std::function<Result<HttpResponse>(const RouteContext&, const Actor&)>;

// Thread-safe; `verifier`, `idempotency` and `users` must outlive it.
class RouteGuard {
 public:
  RouteGuard(const JwtVerifier& verifier, IdempotencyService& idempotency, UserNames& users)
      : verifier_(verifier), users_(users), idempotency_(idempotency, users) {}

  // The handler for an authenticated caller (noted in the request's trace, and its name in
  // `users`); 401 before it runs without a valid token.
  RouteHandler Authenticated(ReadHandler handler) const;
  // Authenticated, then the Idempotency-Key protocol around the handler's effect.
  RouteHandler Idempotent(EffectHandler handler) const;

  // The caller of a request by its bearer token; UNAUTHENTICATED (the 401 a guarded route answers)
  // without a valid one.
  Result<Actor> Authenticate(const HttpRequestHeader& header) const;

 private:
  // Authenticate, and the caller's name recorded.
  Result<Actor> Admit(const RouteContext& ctx) const;

  const JwtVerifier& verifier_;
  UserNames& users_;
  IdempotencyMiddleware idempotency_;
};

// A route group's member function as a handler: `guard.Authenticated(Bind(this, &X::Get))`.
template <typename Group>
ReadHandler Bind(const Group* group,
                 Result<HttpResponse> (Group::*handler)(const RouteContext&, const Actor&) const) {
  return [group, handler](const RouteContext& ctx, const Actor& actor) {
    return (group->*handler)(ctx, actor);
  };
}
template <typename Group>
EffectHandler Bind(const Group* group,
                   Result<IdempotentOutcome> (Group::*handler)(const RouteContext&, const Actor&,
                                                               IdempotentEffect&) const) {
  return [group, handler](const RouteContext& ctx, const Actor& actor, IdempotentEffect& effect) {
    return (group->*handler)(ctx, actor, effect);
  };
}

}  // namespace docgate
