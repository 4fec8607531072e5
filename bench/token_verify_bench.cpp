// Issue 37: what verifying a bearer token costs per request: HS256 (libjwt, docgate's secret)
// against RS256 and ES256 of an OpenID issuer (adapters/oidc: OpenSSL, keys already fetched).
// The token carries the claims an issuer's access token has (iss, aud, exp, name, groups).
// Beside them, what the console's session costs instead (ADR 0013): the cookie's id hashed and
// looked up in kh_session on SQLite (a file, as docgate runs by default), and the CSRF token
// compared.

#include <benchmark/benchmark.h>

#include <unistd.h>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "adapters/crypto/openssl_digest.h"
#include "adapters/crypto/openssl_random.h"
#include "adapters/http/jwt_auth.h"
#include "adapters/oidc/oidc_identity_provider.h"
#include "adapters/sqlite/sqlite_stores.h"
#include "app/console_sessions.h"
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

// A console session on SQLite with `others` more sessions in the table.
struct SessionTable {
  explicit SessionTable(int others)
      : dir(std::filesystem::temp_directory_path() /
            ("docgate-session-bench-" + std::to_string(::getpid()) + "-" + std::to_string(others))),
        stores(Open(dir)),
        sessions(*stores.sessions, digest, random, clock, std::chrono::hours(8)) {
    for (int i = 0; i < others; ++i)
      sessions.Open(Actor{"user-" + std::to_string(i), "", true}, "");
    opened = sessions.Open(Actor{"f3b1c0de-zhangsan", "张三", true, true, false}, "id-token");
  }
  ~SessionTable() { std::filesystem::remove_all(dir); }

  static Stores Open(const std::filesystem::path& dir) {
    std::filesystem::create_directories(dir);
    SqliteConfig config;
    config.path = (dir / "docgate.db").string();
    return OpenSqliteStores(config);
  }

  std::filesystem::path dir;
  Stores stores;
  FakeClock clock;
  OpenSslDigest digest;
  OpenSslRandom random;
  ConsoleSessions sessions;
  OpenedSession opened;
};

void BM_ConsoleSession(benchmark::State& state) {
  SessionTable table(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto session = table.sessions.Find(table.opened.cookie_id);
    if (!session || !table.sessions.CarriesCsrf(*session, table.opened.record.csrf_token)) {
      state.SkipWithError("the session was not found");
    }
    benchmark::DoNotOptimize(session);
  }
}

BENCHMARK(BM_Hs256);
BENCHMARK(BM_Rs256);
BENCHMARK(BM_Es256);
BENCHMARK(BM_ConsoleSession)->Arg(0)->Arg(10'000);

}  // namespace
}  // namespace docgate

BENCHMARK_MAIN();
