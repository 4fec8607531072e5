#pragma once

// The cookies of the console's sign-in (ADR 0013): the session's id, a sign-in waiting for the
// user's word before it replaces another user's session, and the pending login's state, sealed
// with a MAC so that any instance can check it and no row is written for a login never finished.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "adapters/http/http_message.h"
#include "app/console_sessions.h"
#include "app/ports/clock.h"
#include "app/ports/digest.h"

namespace docgate {

inline constexpr std::string_view kSessionCookie = "docgate_session";
inline constexpr std::string_view kPendingCookie = "docgate_pending";
inline constexpr std::string_view kLoginCookie = "docgate_login";
// The header a request authenticated by the session cookie carries its CSRF token in.
inline constexpr char kCsrfHeader[] = "X-Docgate-CSRF";
// How long a login may take at the provider, and a pending switch wait for the user's word.
inline constexpr std::chrono::minutes kLoginLifetime{10};

// The value of cookie `name` in the request's Cookie fields ("a=1; b=2"); nullopt when absent.
std::optional<std::string> CookieValue(const HttpRequestHeader& header, std::string_view name);

// A Set-Cookie value: HttpOnly, SameSite=Lax, `path`, Secure when `secure`, and Max-Age when
// given (0: the browser drops the cookie). Values are ASCII without ';', ',', spaces or quotes.
struct CookieAttributes {
  std::string_view path = "/";
  std::optional<std::chrono::seconds> max_age;
  bool secure = false;
};
std::string SetCookie(std::string_view name, std::string_view value, const CookieAttributes& at);

// Whether the request's X-Docgate-CSRF is `session`'s CSRF token (compared in constant time).
bool CsrfMatches(const HttpRequestHeader& header, const SessionRecord& session,
                 const ConsoleSessions& sessions);
// Why a request authenticated by the session cookie without its CSRF token is refused.
std::string CsrfRefusal();

// What /auth/login drew and /auth/callback must find again.
struct LoginState {
  std::string state;
  std::string nonce;
  std::string code_verifier;
  TimePoint expires_at{};
};

// The key login states are sealed with, derived from docgate's (first) HS256 secret, which every
// instance shares.
std::string LoginStateKey(const Digest& digest, std::string_view jwt_secret);
// `login` as a cookie value: base64url(JSON) "." base64url(HMAC-SHA-256 under `key`).
std::string SealLoginState(const LoginState& login, std::string_view key, const Digest& digest);
// The state a sealed value holds; nullopt when malformed, not sealed under `key`, or expired.
std::optional<LoginState> OpenLoginState(std::string_view sealed, std::string_view key,
                                         TimePoint now, const Digest& digest);

}  // namespace docgate
