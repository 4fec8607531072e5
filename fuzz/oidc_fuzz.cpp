// Invariants of the OpenID issuer's side (adapters/oidc), on input split at the first "\n--\n"
// into a JWK Set and a token (no separator: the whole input is the token, checked against a set
// of one published P-256 key):
// - ParseJsonWebKeySet reads any text and throws nothing but std::invalid_argument; every key it
//   keeps is RS256 or ES256;
// - OidcIdentityProvider::Verify never throws and answers only OK or UNAUTHENTICATED, and OK only
//   with a subject SubjectProblem accepts; the token of the corpus signed by the published key is
//   accepted, and another header or payload under its signature is not;
// - DecodeBase64Url(EncodeBase64Url(x)) == x, and whatever DecodeBase64Url accepts encodes back
//   to the same text (one spelling per byte string).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "adapters/oidc/json_web_key.h"
#include "adapters/oidc/oidc_identity_provider.h"
#include "core/base64url.h"
#include "fakes/fake_clock.h"
#include "fuzz_support.h"

namespace {

using docgate::fuzz::AsText;
using docgate::fuzz::SplitOnce;

constexpr char kIssuer[] = "https://login.example.cn/realms/kb";
constexpr char kPublishedSet[] =
    R"({"keys":[{"kty":"EC","crv":"P-256","kid":"fuzz-es","use":"sig",)"
    R"("x":"FuQFWWpjCJbJ_Pb-8lEuCfGvHdhLpB5VvQ4oI2e0aLE",)"
    R"("y":"XEzHtvnPV0kq0nv0HovKt4FRPTGAAFhaJqIqBugA67k"}]})";
// Signed by the private half of kPublishedSet's key; expires in 2100.
constexpr char kSignedToken[] =
    "eyJhbGciOiJFUzI1NiIsImtpZCI6ImZ1enotZXMifQ."
    "eyJpc3MiOiJodHRwczovL2xvZ2luLmV4YW1wbGUuY24vcmVhbG1zL2tiIiwiYXVkIjoiZG9jZ2F0ZSIsInN1YiI6InpoYW"
    "5n"
    "c2FuIiwibmFtZSI6IuW8oOS4iSIsImV4cCI6NDEwMjQ0NDgwMCwicm9sZXMiOlsiYXV0aG9yIl19."
    "qpCsXz0TZo1SwljjIlDAILwwOEgnsh5cFz6sEo3R2SYm_R9PuFnH8f3I6YUt6jY7xq8Eixt5FDPKu8LcAe_2HQ";

docgate::FakeClock& Clock() {
  static docgate::FakeClock clock;
  return clock;
}

std::unique_ptr<docgate::OidcIdentityProvider> Provider(std::string set) {
  docgate::OidcConfig config;
  config.issuer = kIssuer;
  config.client_id = "docgate";
  auto provider = std::make_unique<docgate::OidcIdentityProvider>(
      config, Clock(), [set = std::move(set)](const std::string& url) -> std::string {
        if (url.ends_with("/openid-configuration")) {
          return std::string(R"({"issuer":")") + kIssuer + R"(","jwks_uri":"https://x/certs"})";
        }
        return set;
      });
  provider->Start();
  return provider;
}

void CheckVerify(const docgate::OidcIdentityProvider& provider, std::string_view token) {
  const auto actor = provider.Verify(token);
  if (actor.ok()) {
    FUZZ_CHECK(!docgate::SubjectProblem(actor.value().id), actor.value().id);
  } else {
    FUZZ_CHECK(actor.error().code == docgate::ErrorCode::kUnauthenticated, actor.error().detail);
  }
}

void CheckBase64(std::string_view text) {
  const std::string bytes(text);
  FUZZ_CHECK(docgate::DecodeBase64Url(docgate::EncodeBase64Url(bytes)) == bytes);
  if (const auto decoded = docgate::DecodeBase64Url(text)) {
    FUZZ_CHECK(docgate::EncodeBase64Url(*decoded) == text, bytes);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = AsText(data, size);
  CheckBase64(input);
  const auto [set, token] = SplitOnce(input, "\n--\n");
  if (token) {
    try {
      for (const auto& key : docgate::ParseJsonWebKeySet(set)) {
        FUZZ_CHECK(key.algorithm() == "RS256" || key.algorithm() == "ES256", key.algorithm());
      }
    } catch (const std::invalid_argument&) {
    }
    CheckVerify(*Provider(std::string(set)), *token);
    return 0;
  }
  static const auto published = Provider(kPublishedSet);
  CheckVerify(*published, input);
  // Another header or payload under the token's signature is refused (another signature could
  // still verify: ECDSA signatures come in pairs, (r, s) and (r, n - s)).
  const std::string_view signed_token = kSignedToken;
  const std::string_view signature = signed_token.substr(signed_token.rfind('.'));
  if (input != signed_token && input.ends_with(signature)) {
    FUZZ_CHECK(!published->Verify(input).ok());
  }
  static const bool round_trip = [] {
    FUZZ_CHECK(published->Verify(kSignedToken).ok());
    return true;
  }();
  (void)round_trip;
  return 0;
}
