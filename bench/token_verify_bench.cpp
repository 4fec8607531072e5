// Issue 37: what verifying a bearer token costs per request: HS256 (libjwt, docgate's secret)
// against RS256 and ES256 of an OpenID issuer (adapters/oidc: OpenSSL, keys already fetched).
// The token carries the claims an issuer's access token has (iss, aud, exp, name, groups).

#include <benchmark/benchmark.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "adapters/http/jwt_auth.h"
#include "adapters/oidc/oidc_identity_provider.h"
#include "fakes/fake_clock.h"
#include "support/issuer_keys.h"

namespace docgate {
namespace {

constexpr char kIssuer[] = "https://sso.example.cn/realms/kb";

struct Issuer {
  FakeClock clock;
  IssuerKey rs = RsaKey("rs");
  IssuerKey es = EcKey("es");
  OidcIdentityProvider provider{
      Config(), clock, [this](const std::string& url) {
        if (url.ends_with("openid-configuration")) {
          return nlohmann::json{{"issuer", kIssuer}, {"jwks_uri", "https://x/certs"}}.dump();
        }
        return nlohmann::json{{"keys", {rs.Jwk(), es.Jwk()}}}.dump();
      }};
  JwtVerifier verifier{{"bench-secret-0123456789abcdef"}, clock, &provider};

  Issuer() { provider.Start(); }

  static OidcConfig Config() {
    OidcConfig config;
    config.issuer = kIssuer;
    config.client_id = "docgate";
    config.roles_claim = "groups";
    config.role_map = "kb-writers=author,kb-reviewers=reviewer";
    return config;
  }

  nlohmann::json Claims() {
    const auto now =
        std::chrono::duration_cast<std::chrono::seconds>(clock.Now().time_since_epoch()).count();
    return {{"iss", kIssuer},
            {"aud", "docgate"},
            {"sub", "f3b1c0de-zhangsan"},
            {"name", "张三"},
            {"exp", now + 300},
            {"iat", now},
            {"groups", {"kb-writers", "kb-reviewers"}}};
  }
};

Issuer& TheIssuer() {
  static Issuer issuer;
  return issuer;
}

void Verify(benchmark::State& state, const std::string& token) {
  for (auto _ : state) {
    auto actor = TheIssuer().verifier.Verify(token);
    if (!actor.ok()) state.SkipWithError("the token was refused");
    benchmark::DoNotOptimize(actor);
  }
}

void BM_Hs256(benchmark::State& state) {
  Issuer& issuer = TheIssuer();
  Verify(state, SignHs256Token("bench-secret-0123456789abcdef",
                               TokenClaims{"f3b1c0de-zhangsan",
                                           {"author", "reviewer"},
                                           "张三",
                                           issuer.clock.Now() + std::chrono::minutes(5)},
                               issuer.clock.Now()));
}

void BM_Rs256(benchmark::State& state) {
  Issuer& issuer = TheIssuer();
  Verify(state, Compact({{"alg", "RS256"}, {"kid", "rs"}}, issuer.Claims(), issuer.rs));
}

void BM_Es256(benchmark::State& state) {
  Issuer& issuer = TheIssuer();
  Verify(state, Compact({{"alg", "ES256"}, {"kid", "es"}}, issuer.Claims(), issuer.es));
}

BENCHMARK(BM_Hs256);
BENCHMARK(BM_Rs256);
BENCHMARK(BM_Es256);

}  // namespace
}  // namespace docgate

BENCHMARK_MAIN();
