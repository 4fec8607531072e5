#pragma once

// Bearer tokens: HS256 JWTs (libjwt). Claims: `sub` (required, non-empty string), `roles` (array of
// strings; `author`, `reviewer`, `admin` are recognised, others ignored), `name` (optional string),
// `exp` / `nbf` (NumericDate, enforced when present against the injected Clock).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/clock.h"
#include "core/error.h"
#include "core/model.h"

namespace docgate {

struct TokenClaims {
  std::string subject;
  std::vector<std::string> roles;
  std::optional<std::string> name;
  std::optional<TimePoint> expires_at;
};

// A signed HS256 token carrying `claims` and `iat` = issued_at. Throws std::runtime_error if
// libjwt fails (out of memory) and std::invalid_argument for an empty secret.
std::string SignHs256Token(std::string_view secret, const TokenClaims& claims, TimePoint issued_at);

// Verifies bearer tokens. Thread-safe (immutable after construction); `clock` must outlive it.
class JwtVerifier {
 public:
  // Throws std::invalid_argument for an empty secret.
  JwtVerifier(std::string secret, Clock& clock);

  // From an `Authorization` header value ("Bearer <token>"; the scheme is case-insensitive).
  // UNAUTHENTICATED when absent, malformed, not HS256 (`alg: none` included), badly signed,
  // expired or missing a valid `sub`.
  Result<Actor> Authenticate(std::string_view authorization) const;
  Result<Actor> Verify(const std::string& token) const;

 private:
  std::string secret_;
  Clock& clock_;
};

}  // namespace docgate
