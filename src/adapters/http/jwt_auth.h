#pragma once

// Bearer tokens: HS256 JWTs (libjwt). Claims: `sub` (required; see SubjectProblem), `roles` (array
// of strings; `author`, `reviewer`, `admin` are recognised, others ignored), `name` (optional
// string without control characters), `exp` / `nbf` (NumericDate, enforced when present against the
// injected Clock).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/ports/clock.h"
#include "core/error.h"
#include "core/model.h"

namespace docgate {

// The longest `sub` accepted, in bytes of UTF-8: a caller id is stored and indexed (documents'
// authors, reviews, idempotency keys), and 255 bytes stay well inside every index's entry limit.
inline constexpr std::size_t kMaxSubjectBytes = 255;

// Why `sub` cannot identify a caller, or nullopt when it can: 1..kMaxSubjectBytes bytes of valid
// UTF-8 without control characters (so it is stored as it is and logs on one line).
std::optional<std::string> SubjectProblem(std::string_view sub);

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

// Verifies bearer tokens. Thread-safe (immutable after construction); `clock` must outlive it.
class JwtVerifier {
 public:
  // Throws std::invalid_argument for an empty secret.
  JwtVerifier(std::string secret, Clock& clock);

  // From an `Authorization` header value ("Bearer <token>"; the scheme is case-insensitive).
  // UNAUTHENTICATED when absent, malformed, not HS256 (`alg: none` included), badly signed,
  // expired, or whose `sub` or `name` is not acceptable (SubjectProblem; a `name` with control
  // characters).
  Result<Actor> Authenticate(std::string_view authorization) const;
  Result<Actor> Verify(const std::string& token) const;

 private:
  std::string secret_;
  Clock& clock_;
};

}  // namespace docgate
