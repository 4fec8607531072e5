#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "adapters/oidc/oidc_identity_provider.h"
#include "adapters/oidc/oidc_key_set.h"
#include "app/ports/sign_in_provider.h"

namespace docgate {

// SignInProvider for the issuer of `identity`: its discovery document's endpoints, the code
// redeemed with `post` (client_secret_basic when DOCGATE_OIDC_CLIENT_SECRET is set, else the
// client id in the form: a public client), the ID token verified by `identity`. Thread-safe;
// `identity` must outlive it.
class OidcSignIn final : public SignInProvider {
 public:
  OidcSignIn(OidcIdentityProvider& identity, PostForm post);

  Result<std::string> AuthorizationUrl(const SignInStart& start) override;
  Result<SignedIn> Redeem(const std::string& code, const std::string& code_verifier,
                          const std::string& redirect_uri, const std::string& nonce) override;
  std::optional<std::string> EndSessionUrl(const std::string& id_token_hint,
                                           const std::string& post_logout_redirect_uri) override;

 private:
  // The discovery document's endpoints; UNAVAILABLE naming `which` one was wanted without them.
  Result<OidcEndpoints> Endpoints(std::string_view which);

  OidcIdentityProvider& identity_;
  const PostForm post_;
};

}  // namespace docgate
