#pragma once

#include <string>
#include <string_view>

#include "core/error.h"
#include "core/model.h"

namespace docgate {

// Bearer tokens signed by a company's OpenID Connect issuer (RS256 or ES256, keys from the
// issuer's published key set). Implementations are thread-safe; Verify may fetch the key set
// (bounded by the implementation's own timeout and rate limit) and never throws.
class IdentityProvider {
 public:
  virtual ~IdentityProvider() = default;

  // `token` is a compact JWS. The caller it names, or UNAUTHENTICATED with the reason: not
  // RS256/ES256, a key the issuer does not publish, a bad signature, another issuer or audience,
  // expired or not yet valid (beyond the allowed clock skew), a missing or unusable `sub`.
  virtual Result<Actor> Verify(std::string_view token) const = 0;

  // For /readyz: "ok" while the issuer's keys are at hand, "degraded" while they could not be
  // fetched (tokens are then refused until they are).
  virtual std::string State() const = 0;
};

}  // namespace docgate
