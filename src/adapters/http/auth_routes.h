#pragma once

// The console's sign-in through the company's OpenID provider (API.md v1.2 "Console sign-in", ADR
// 0013): GET /auth/login, GET /auth/callback, GET /auth/session, POST /auth/logout, and
// POST|DELETE /auth/switch for a sign-in that waits for the user's word before it replaces another
// user's session.

#include <chrono>
#include <string>
#include <string_view>

#include "adapters/http/http_message.h"
#include "adapters/http/router.h"
#include "app/console_sessions.h"
#include "app/ports/clock.h"
#include "app/ports/random_source.h"
#include "app/ports/sign_in_provider.h"
#include "app/user_names.h"

namespace docgate {

// What the console's sign-in runs on; all null (the default): sign-in is off.
struct ConsoleSignIn {
  SignInProvider* provider = nullptr;
  ConsoleSessions* sessions = nullptr;  // set with the provider
  RandomSource* random = nullptr;       // set with the provider
  Clock* clock = nullptr;               // set with the provider
  // Where browsers reach docgate (DOCGATE_PUBLIC_URL), perhaps under a path prefix of a proxy.
  std::string public_url;
  std::string login_key;  // LoginStateKey of docgate's HS256 secret
};

// Thread-safe; the referenced objects must outlive it. Without a provider (sign-in not
// configured) /auth/session says so and /auth/login, /auth/callback and /auth/switch are 404.
class AuthRoutes {
 public:
  AuthRoutes(ConsoleSignIn sign_in, UserNames& users);

  void AddTo(Router& router) const;

 private:
  Result<HttpResponse> Login(const RouteContext& ctx) const;
  Result<HttpResponse> Callback(const RouteContext& ctx) const;
  HttpResponse Session(const RouteContext& ctx) const;
  Result<HttpResponse> Logout(const RouteContext& ctx) const;
  Result<HttpResponse> Switch(const RouteContext& ctx) const;
  Result<HttpResponse> DropSwitch(const RouteContext& ctx) const;

  bool enabled() const { return config_.provider != nullptr; }
  bool secure() const { return config_.public_url.starts_with("https://"); }
  // Sets cookie `name` on `response` for the path `under` below the public URL's path (a
  // proxy's prefix; "" at a host's root): HttpOnly, SameSite=Lax, Secure behind https.
  void Put(HttpResponse& response, std::string_view name, std::string_view value,
           std::string_view under, std::chrono::seconds max_age) const;
  // The session cookie of `id`, until the session expires.
  void PutSession(HttpResponse& response, std::string_view id, TimePoint expires_at) const;
  // Tells the browser to drop cookie `name` (Max-Age=0).
  void Drop(HttpResponse& response, std::string_view name, std::string_view under) const;
  // 404 unless enabled.
  Status RequireEnabled() const;
  // The sessions' digest (set when enabled).
  const Digest& digest() const { return config_.sessions->digest(); }

  ConsoleSignIn config_;
  std::string base_path_;
  UserNames& users_;
};

}  // namespace docgate
