#pragma once

// Bearer tokens: HS256 JWTs (libjwt), and RS256/ES256 ones handed to the OpenID issuer's
// IdentityProvider when one is configured. HS256 claims: `sub` (required; see SubjectProblem),
// `roles` (array of strings; `author`, `reviewer`, `admin` are recognised, others ignored), `name`
// (optional string without control characters), `exp` / `nbf` (NumericDate, enforced when present
// against the injected Clock).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/ports/clock.h"
#include "app/ports/identity_provider.h"
#include "core/error.h"
#include "core/model.h"

namespace docgate {

struct TokenClaims {
  std::string subject;
  std::vector<std::string> roles;
  std::optional<std::string> name;
  std::optional<TimePoint> expires_at;
};

// A signed HS256 token carrying `claims` and `iat` = issued_at, which JwtVerifier accepts with the
// same secret until it expires. Throws std::invalid_argument for an empty secret and for claims
// the verifier would refuse (a subject with a SubjectProblem, a `name` with control characters or
// not UTF-8, a role not UTF-8 or holding U+0000, so many roles that the token exceeds the 8 KiB a
// bearer token may have), and std::runtime_error if libjwt fails (out of memory).
std::string SignHs256Token(std::string_view secret, const TokenClaims& claims, TimePoint issued_at);

// DOCGATE_JWT_SECRET's secrets: one, or several separated by commas while they rotate (tokens are
// issued with the first and accepted with any). nullopt when a piece is empty.
std::optional<std::vector<std::string>> SplitJwtSecrets(std::string_view list);

// Verifies bearer tokens. Thread-safe (immutable after construction); `clock` and `provider`
// must outlive it.
class JwtVerifier {
 public:
  // Throws std::invalid_argument for no secret or an empty one. `provider` (may be null) verifies
  // RS256 and ES256 tokens; without one they are refused.
  JwtVerifier(std::vector<std::string> secrets, Clock& clock,
              const IdentityProvider* provider = nullptr);

  // From an `Authorization` header value ("Bearer <token>"; the scheme is case-insensitive).
  // UNAUTHENTICATED when absent, malformed, signed with another algorithm than HS256, RS256 or
  // ES256 (`alg: none` included), badly signed, expired, or whose `sub` or `name` is not
  // acceptable (SubjectProblem; a `name` with control characters).
  Result<Actor> Authenticate(std::string_view authorization) const;
  Result<Actor> Verify(const std::string& token) const;

 private:
  Result<Actor> VerifyHs256(const std::string& token) const;

  std::vector<std::string> secrets_;
  Clock& clock_;
  const IdentityProvider* provider_;
};

}  // namespace docgate
