#pragma once

#include <optional>
#include <string>

#include "core/error.h"
#include "core/model.h"

namespace docgate {

// What the browser is sent to the provider with (authorization code flow with PKCE, ADR 0013).
struct SignInStart {
  std::string state;           // echoed back to the callback; bound to the browser's login cookie
  std::string nonce;           // must come back in the ID token
  std::string code_challenge;  // base64url SHA-256 of the verifier (S256)
  std::string redirect_uri;    // <DOCGATE_PUBLIC_URL>/auth/callback
};

// Whom an ID token names, verified, and the token itself (for the end-session hint).
struct SignedIn {
  Actor actor;
  std::string id_token;
};

// The console's way in through the company's OpenID provider. Thread-safe.
class SignInProvider {
 public:
  virtual ~SignInProvider() = default;
  // The authorization endpoint's URL for `start`. UNAVAILABLE when the provider's discovery
  // document cannot be had (unreachable since docgate started).
  virtual Result<std::string> AuthorizationUrl(const SignInStart& start) = 0;
  // Redeems `code` at the token endpoint with the PKCE verifier, and verifies the ID token it
  // answers (the issuer's keys, `aud` = the client id, `nonce`). UNAUTHENTICATED when the provider
  // refuses the code or the ID token is not acceptable; UNAVAILABLE when it cannot be reached.
  virtual Result<SignedIn> Redeem(const std::string& code, const std::string& code_verifier,
                                  const std::string& redirect_uri, const std::string& nonce) = 0;
  // Where the browser ends its session at the provider too, or nullopt when the provider has no
  // end-session endpoint.
  virtual std::optional<std::string> EndSessionUrl(const std::string& id_token_hint,
                                                   const std::string& post_logout_redirect_uri) = 0;
};

}  // namespace docgate
