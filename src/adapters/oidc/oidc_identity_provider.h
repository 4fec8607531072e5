#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "adapters/oidc/oidc_config.h"
#include "adapters/oidc/oidc_key_set.h"
#include "app/ports/clock.h"
#include "app/ports/identity_provider.h"

namespace docgate {

// The clock skew allowed on `exp` and `nbf` of an issuer's tokens.
inline constexpr std::chrono::seconds kOidcLeeway{60};
// How often the refresher fetches the keys while they are at hand: a key the issuer withdrew
// (compromised, retired) is refused within this time.
inline constexpr std::chrono::minutes kOidcKeysMaxAge{10};

// IdentityProvider for one OpenID Connect issuer (OidcConfig). A token is accepted when:
// - its header names RS256 or ES256 and a key of the issuer of that very algorithm (an ES256
//   header on an RSA key, an HS256 token or `none` are refused: no algorithm is taken from the
//   token alone), and that key's signature verifies;
// - `iss` is the configured issuer exactly, `aud` (a string or a list) contains the audience,
//   `exp` is present and, like `nbf`, holds within kOidcLeeway;
// - `sub` is acceptable (SubjectProblem).
// Roles come from the roles claim through the role map; the name from `name`, else
// `preferred_username` (text with control characters is left out, not refused). Thread-safe.
class OidcIdentityProvider final : public IdentityProvider {
 public:
  // `config` must be valid (ValidateOidcConfig). Fetches nothing until Start().
  OidcIdentityProvider(OidcConfig config, Clock& clock, FetchDocument fetch);

  ~OidcIdentityProvider() override;
  OidcIdentityProvider(const OidcIdentityProvider&) = delete;
  OidcIdentityProvider& operator=(const OidcIdentityProvider&) = delete;

  // Fetches the issuer's keys; an issuer unreachable now is logged and the provider "degraded",
  // not fatal: the keys are fetched again when a token needs them.
  void Start();
  // Starts a thread that fetches the keys every kOidcKeysMaxAge, and every keys_refresh while
  // the last fetch failed (so readiness heals without traffic). Stopped by the destructor.
  void StartRefresher();

  Result<Actor> Verify(std::string_view token) const override;
  // An ID token of a console sign-in: as Verify, but `aud` must name the client id and `nonce` be
  // the one the sign-in sent.
  Result<Actor> VerifyIdToken(std::string_view token, std::string_view nonce) const;
  std::string State() const override;

  const OidcKeySet& keys() const { return *keys_; }
  OidcKeySet& keys() { return *keys_; }
  const OidcConfig& config() const { return config_; }

 private:
  // `nonce` null: not asked for (a bearer token).
  Result<Actor> VerifyFor(std::string_view token, const std::string& audience,
                          const std::string_view* nonce) const;
  Result<Actor> ActorFromClaims(std::string_view payload, const std::string& audience,
                                const std::string_view* nonce) const;

  OidcConfig config_;
  RoleMap role_map_;
  Clock& clock_;
  std::unique_ptr<OidcKeySet> keys_;

  std::mutex refresher_mutex_;
  std::condition_variable refresher_wake_;
  bool stopping_ = false;
  std::thread refresher_;
};

}  // namespace docgate
