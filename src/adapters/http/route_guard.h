#pragma once

// What a route of /api/v1 opts into: its caller authenticated from the bearer token (or, without
// an Authorization header, from the console's session cookie, ADR 0013), and for a POST route the
// Idempotency-Key protocol (idempotency_middleware.h) around its effect.

#include <functional>

#include "adapters/http/http_message.h"
#include "adapters/http/idempotency_middleware.h"
#include "adapters/http/jwt_auth.h"
#include "adapters/http/router.h"
#include "app/console_sessions.h"
#include "core/model.h"

namespace docgate {

// A route without an effect to replay: its response, or the problem to answer.
using ReadHandler = std::function<Result<HttpResponse>(const RouteContext&, const Actor&)>;

// Thread-safe; the referenced objects must outlive it.
class RouteGuard {
 public:
  // `sessions` null: console sessions are off, and session cookies are ignored.
  RouteGuard(const JwtVerifier& verifier, IdempotencyService& idempotency, UserNames& users,
             ConsoleSessions* sessions = nullptr)
      : verifier_(verifier), users_(users), sessions_(sessions), idempotency_(idempotency, users) {}

  // The handler for an authenticated caller (noted in the request's trace, and its name in
  // `users`); 401 before it runs without a valid token.
  RouteHandler Authenticated(ReadHandler handler) const;
  // Authenticated, then the Idempotency-Key protocol around the handler's effect.
  RouteHandler Idempotent(EffectHandler handler) const;

  // The caller of a request by its bearer token; UNAUTHENTICATED (the 401 a guarded route answers)
  // without a valid one. A request without an Authorization header is the caller of its session
  // cookie when it holds a live session; a method other than GET and HEAD must then carry the
  // session's X-Docgate-CSRF token, or it is FORBIDDEN.
  Result<Actor> Authenticate(const HttpRequestHeader& header) const;
  // What can be decided before the body is read without asking the store: a bearer token is
  // verified; a session cookie of an id's shape is let through (Authenticate decides it).
  Status Prescreen(const HttpRequestHeader& header) const;

 private:
  // Authenticate, and the caller's name recorded.
  Result<Actor> Admit(const RouteContext& ctx) const;

  // The session cookie's value when the request authenticates by it (no Authorization header).
  std::optional<std::string> SessionCookie(const HttpRequestHeader& header) const;
  // The caller of the Authorization header's bearer token.
  Result<Actor> Bearer(const HttpRequestHeader& header) const;

  const JwtVerifier& verifier_;
  UserNames& users_;
  ConsoleSessions* sessions_;
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
