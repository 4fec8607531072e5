// The OpenID issuer's tokens (adapters/oidc) and how JwtVerifier hands them over: keys generated
// here with OpenSSL, published through a fetch the test controls, tokens signed here.
#include <gtest/gtest.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <atomic>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <thread>

#include "adapters/http/jwt_auth.h"
#include "adapters/oidc/json_web_key.h"
#include "adapters/oidc/oidc_identity_provider.h"
#include "core/base64url.h"
#include "fakes/fake_clock.h"
#include "support/issuer_keys.h"

namespace docgate {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

constexpr char kIssuer[] = "https://login.example.cn/realms/kb";

class OidcIdentityTest : public ::testing::Test {
 protected:
  OidcIdentityTest() {
    config_.issuer = kIssuer;
    config_.client_id = "docgate";
    config_.roles_claim = "realm_access.roles";
    config_.role_map = "kb-writers=author,kb-reviewers=reviewer,kb-admins=admin";
  }

  // The issuer as the fetch sees it: discovery names the key set, which publishes `published_`.
  std::string Fetch(const std::string& url) {
    ++fetches_[url];
    if (down_) throw std::runtime_error("connection refused");
    if (url == std::string(kIssuer) + "/.well-known/openid-configuration") {
      return json{{"issuer", kIssuer}, {"jwks_uri", std::string(kIssuer) + "/certs"}}.dump();
    }
    if (url == std::string(kIssuer) + "/certs") {
      json keys = json::array();
      for (const IssuerKey* key : published_) keys.push_back(key->Jwk());
      keys.push_back(
          {{"kid", "enc-1"}, {"kty", "RSA"}, {"use", "enc"}, {"n", "AQAB"}, {"e", "AQAB"}});
      return json{{"keys", keys}}.dump();
    }
    throw std::runtime_error("404 " + url);
  }

  OidcIdentityProvider& Provider() {
    if (!provider_) {
      provider_ = std::make_unique<OidcIdentityProvider>(
          config_, clock_, [this](const std::string& url) { return Fetch(url); });
      provider_->Start();
    }
    return *provider_;
  }

  json Claims() const {
    const auto now =
        std::chrono::duration_cast<std::chrono::seconds>(clock_.Now().time_since_epoch()).count();
    return {{"iss", kIssuer},
            {"aud", "docgate"},
            {"sub", "f3b1c0de-zhangsan"},
            {"name", "张三"},
            {"preferred_username", "zhangsan"},
            {"exp", now + 300},
            {"iat", now},
            {"realm_access", {{"roles", {"kb-writers", "offline_access"}}}}};
  }

  std::string Token(const IssuerKey& key, const json& claims) const {
    return Compact({{"alg", key.alg}, {"kid", key.kid}, {"typ", "JWT"}}, claims, key);
  }

  std::uint64_t KeyFetches() { return Provider().keys().key_fetches(); }

  mutable FakeClock clock_;
  OidcConfig config_;
  IssuerKey rs_ = RsaKey("rs-2026");
  IssuerKey es_ = EcKey("es-2026");
  std::vector<const IssuerKey*> published_{&rs_, &es_};
  bool down_ = false;
  std::map<std::string, int> fetches_;
  std::unique_ptr<OidcIdentityProvider> provider_;
};

TEST(Base64UrlTest, RoundTripsAndRefusesSecondSpellings) {
  EXPECT_EQ(EncodeBase64Url("foobar"), "Zm9vYmFy");
  EXPECT_EQ(EncodeBase64Url("fo"), "Zm8");
  EXPECT_EQ(EncodeBase64Url("\xfb\xff"), "-_8");
  EXPECT_EQ(DecodeBase64Url("Zm8"), "fo");
  EXPECT_EQ(DecodeBase64Url(""), "");
  const std::string bytes = "审核\x00\xff\x10 docgate";
  for (std::size_t n = 0; n <= bytes.size(); ++n) {
    EXPECT_EQ(DecodeBase64Url(EncodeBase64Url(bytes.substr(0, n))), bytes.substr(0, n)) << n;
  }
  for (const char* bad : {"Zm8=", "Z", "Zm9", "Zm+v", "Zm/v", "Zm 8", "Zm8\n"}) {
    EXPECT_EQ(DecodeBase64Url(bad), std::nullopt) << bad;
  }
}

TEST_F(OidcIdentityTest, AcceptsRs256AndEs256TokensWithRolesAndName) {
  for (const IssuerKey* key : {&rs_, &es_}) {
    const auto actor = Provider().Verify(Token(*key, Claims()));
    ASSERT_TRUE(actor.ok()) << key->alg << ": " << actor.error().detail;
    EXPECT_EQ(actor.value().id, "f3b1c0de-zhangsan");
    EXPECT_EQ(actor.value().name, "张三");
    EXPECT_TRUE(actor.value().is_author);
    EXPECT_FALSE(actor.value().is_reviewer);
    EXPECT_FALSE(actor.value().is_admin);
  }
  EXPECT_EQ(Provider().State(), "ok");
  EXPECT_EQ(KeyFetches(), 1u);
}

TEST_F(OidcIdentityTest, RolesFromAListOrASpaceSeparatedStringThroughTheMap) {
  config_.roles_claim = "groups";
  json claims = Claims();
  claims["groups"] = "kb-reviewers  kb-admins unrelated";
  claims.erase("name");
  const auto actor = Provider().Verify(Token(rs_, claims));
  ASSERT_TRUE(actor.ok()) << actor.error().detail;
  EXPECT_FALSE(actor.value().is_author);
  EXPECT_TRUE(actor.value().is_reviewer);
  EXPECT_TRUE(actor.value().is_admin);
  EXPECT_EQ(actor.value().name, "zhangsan");  // preferred_username when there is no name

  // Without a map, only values that are docgate's role names count.
  config_.role_map.clear();
  provider_.reset();
  claims["groups"] = {"reviewer", "kb-admins"};
  const auto direct = Provider().Verify(Token(rs_, claims));
  ASSERT_TRUE(direct.ok());
  EXPECT_TRUE(direct.value().is_reviewer);
  EXPECT_FALSE(direct.value().is_admin);
}

TEST_F(OidcIdentityTest, RefusesWhatIsNotForDocgateOrNotNow) {
  const auto refused = [&](const json& claims, const std::string& why) {
    const auto actor = Provider().Verify(Token(es_, claims));
    ASSERT_FALSE(actor.ok()) << why;
    EXPECT_EQ(actor.error().code, ErrorCode::kUnauthenticated) << why;
  };
  json claims = Claims();
  const auto now = claims["iat"].get<std::int64_t>();
  claims["iss"] = std::string(kIssuer) + "/";
  refused(claims, "another issuer (a trailing slash is another string)");
  claims = Claims();
  claims["aud"] = "account";
  refused(claims, "another audience");
  claims["aud"] = {"account", "docgate"};
  EXPECT_TRUE(Provider().Verify(Token(es_, claims)).ok()) << "a list naming docgate";
  claims = Claims();
  claims.erase("exp");
  refused(claims, "no exp");
  claims["exp"] = now - 61;
  refused(claims, "expired beyond the leeway");
  claims["exp"] = now - 30;
  EXPECT_TRUE(Provider().Verify(Token(es_, claims)).ok()) << "expired within the 60 s leeway";
  claims = Claims();
  claims["nbf"] = now + 120;
  refused(claims, "not valid yet");
  claims["nbf"] = now + 30;
  EXPECT_TRUE(Provider().Verify(Token(es_, claims)).ok()) << "nbf within the leeway";
  claims = Claims();
  claims.erase("sub");
  refused(claims, "no sub");
  claims["sub"] = std::string(256, 'a');
  refused(claims, "a sub too long to store");
  claims["sub"] = "a\nb";
  refused(claims, "a sub with a control character");
  claims = Claims();
  claims["exp"] = "tomorrow";
  refused(claims, "exp not a number");
}

TEST_F(OidcIdentityTest, RefusesForgedAndConfusedSignatures) {
  const std::string good = Token(rs_, Claims());
  const auto refused = [&](const std::string& token, const std::string& why) {
    const auto actor = Provider().Verify(token);
    ASSERT_FALSE(actor.ok()) << why;
    EXPECT_EQ(actor.error().code, ErrorCode::kUnauthenticated) << why;
  };
  // One byte of the payload changed under the same signature.
  std::string tampered = good;
  tampered[tampered.find('.') + 5] ^= 1;
  refused(tampered, "tampered payload");
  refused(good.substr(0, good.rfind('.') + 1), "no signature");
  // Signed by a key the issuer does not publish, under a kid it does.
  const IssuerKey impostor = RsaKey("rs-2026");
  refused(Token(impostor, Claims()), "an impostor key under a published kid");
  // An ES256 header over the RSA key's kid, signed by an EC key.
  IssuerKey confused = EcKey("rs-2026");
  refused(Token(confused, Claims()), "ES256 for an RSA key");
  // alg none and HS256 reach the provider only by mistake; it refuses them itself.
  refused(EncodeBase64Url(R"({"alg":"none"})") + "." + EncodeBase64Url(Claims().dump()) + ".",
          "alg none");
  refused(EncodeBase64Url(R"({"alg":"HS256","kid":"rs-2026"})") + "." +
              EncodeBase64Url(Claims().dump()) + "." + EncodeBase64Url("x"),
          "HS256 at the provider");
  refused("not.a.token", "garbage");
  refused(Token(RsaKey("unknown-kid"), Claims()), "an unknown kid");
}

TEST_F(OidcIdentityTest, UnknownKidsFetchTheKeysAtMostOncePerInterval) {
  ASSERT_EQ(KeyFetches(), 1u);
  // A flood of made-up kids right after start: no fetch at all within the interval.
  IssuerKey signer = EcKey("");
  for (int i = 0; i < 200; ++i) {
    signer.kid = "flood-" + std::to_string(i);
    ASSERT_FALSE(Provider().Verify(Token(signer, Claims())).ok());
  }
  EXPECT_EQ(KeyFetches(), 1u);
  clock_.Advance(30s);
  for (int i = 0; i < 50; ++i) {
    signer.kid = "later-" + std::to_string(i);
    ASSERT_FALSE(Provider().Verify(Token(signer, Claims())).ok());
  }
  EXPECT_EQ(KeyFetches(), 2u) << "one fetch for the first unknown kid after the interval";
}

TEST_F(OidcIdentityTest, ARotatedKeyIsFetchedAndTheOldOneKeepsWorkingWhileTheIssuerIsDown) {
  ASSERT_TRUE(Provider().Verify(Token(rs_, Claims())).ok());
  clock_.Advance(31s);
  const IssuerKey next = RsaKey("rs-2027");
  published_ = {&next, &rs_};
  ASSERT_TRUE(Provider().Verify(Token(next, Claims())).ok()) << "the new kid was fetched";
  EXPECT_EQ(KeyFetches(), 2u);

  // The issuer goes down: keys at hand stay usable; the state says degraded once a fetch failed.
  down_ = true;
  clock_.Advance(31s);
  EXPECT_FALSE(Provider().Verify(Token(RsaKey("rs-2028"), Claims())).ok());
  EXPECT_EQ(Provider().State(), "degraded");
  EXPECT_TRUE(Provider().Verify(Token(rs_, Claims())).ok());
  EXPECT_TRUE(Provider().Verify(Token(next, Claims())).ok());
  // It comes back: the next fetch (after the interval) heals the state.
  down_ = false;
  clock_.Advance(31s);
  EXPECT_FALSE(Provider().Verify(Token(RsaKey("rs-2029"), Claims())).ok());
  EXPECT_EQ(Provider().State(), "ok");
}

TEST_F(OidcIdentityTest, AnIssuerUnreachableAtStartIsDegradedNotFatal) {
  down_ = true;
  EXPECT_EQ(Provider().State(), "degraded");
  EXPECT_FALSE(Provider().Verify(Token(rs_, Claims())).ok());
  down_ = false;
  clock_.Advance(31s);
  EXPECT_TRUE(Provider().Verify(Token(rs_, Claims())).ok());
  EXPECT_EQ(Provider().State(), "ok");
}

TEST_F(OidcIdentityTest, TheRefresherHealsADegradedStartWithoutTraffic) {
  config_.keys_refresh = 20ms;
  std::atomic<bool> up{false};
  OidcIdentityProvider provider(config_, clock_, [&](const std::string& url) {
    if (!up) throw std::runtime_error("connection refused");
    return Fetch(url);
  });
  provider.Start();
  ASSERT_EQ(provider.State(), "degraded");
  provider.StartRefresher();
  up = true;
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (provider.State() != "ok" && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);  // polling interval
  }
  EXPECT_EQ(provider.State(), "ok");
  EXPECT_TRUE(provider.Verify(Token(es_, Claims())).ok());
}

TEST(JsonWebKeySetTest, KeepsTheSigningKeysDocgateCanUseAndRefusesMalformedOnes) {
  const IssuerKey small = RsaKey("small", 1024);
  const IssuerKey rs = RsaKey("rs");
  json ps = rs.Jwk();
  ps["alg"] = "PS256";
  json enc = rs.Jwk();
  enc["use"] = "enc";
  json p384 = EcKey("es").Jwk();
  p384["crv"] = "P-384";
  json okp = {
      {"kty", "OKP"}, {"crv", "Ed25519"}, {"x", "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}};
  const auto keys = ParseJsonWebKeySet(
      json{{"keys", {small.Jwk(), rs.Jwk(), ps, enc, p384, okp, EcKey("es").Jwk()}}}.dump());
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys[0].kid(), "rs");
  EXPECT_EQ(keys[0].algorithm(), "RS256");
  EXPECT_EQ(keys[1].algorithm(), "ES256");

  EXPECT_THROW(ParseJsonWebKeySet("[]"), std::invalid_argument);
  EXPECT_THROW(ParseJsonWebKeySet(R"({"keys": {}})"), std::invalid_argument);
  EXPECT_THROW(ParseJsonWebKeySet("{"), std::invalid_argument);
  json bad_n = rs.Jwk();
  bad_n["n"] = "not base64url!";
  EXPECT_THROW(ParseJsonWebKeySet(json{{"keys", {bad_n}}}.dump()), std::invalid_argument);
  json off_curve = EcKey("es").Jwk();
  off_curve["y"] = EncodeBase64Url(std::string(32, '\x01'));
  EXPECT_THROW(ParseJsonWebKeySet(json{{"keys", {off_curve}}}.dump()), std::invalid_argument);
}

class JwtVerifierDispatchTest : public OidcIdentityTest {};

TEST_F(JwtVerifierDispatchTest, HandsIssuerTokensToTheProviderAndRotatesHs256Secrets) {
  const TokenClaims claims{"wangwu", {"reviewer"}, "王五", clock_.Now() + 1h};
  const std::string old_token = SignHs256Token("old-secret-0123456789", claims, clock_.Now());
  const std::string new_token = SignHs256Token("new-secret-0123456789", claims, clock_.Now());
  const std::string stranger = SignHs256Token("other-secret-012345678", claims, clock_.Now());

  const JwtVerifier rotating({"new-secret-0123456789", "old-secret-0123456789"}, clock_,
                             &Provider());
  EXPECT_TRUE(rotating.Verify(new_token).ok());
  EXPECT_TRUE(rotating.Verify(old_token).ok());
  EXPECT_FALSE(rotating.Verify(stranger).ok());
  const auto issuer = rotating.Verify(Token(es_, Claims()));
  ASSERT_TRUE(issuer.ok()) << issuer.error().detail;
  EXPECT_EQ(issuer.value().id, "f3b1c0de-zhangsan");

  // Algorithm confusion: HS256 keyed with the issuer's public key is not a secret of ours.
  const std::string confused = SignHs256Token(rs_.PublicPem(), claims, clock_.Now());
  EXPECT_FALSE(rotating.Verify(confused).ok());

  const JwtVerifier hs256_only({"new-secret-0123456789"}, clock_);
  const auto refused = hs256_only.Verify(Token(rs_, Claims()));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().detail.find("DOCGATE_OIDC_ISSUER"), std::string::npos);
  EXPECT_FALSE(hs256_only.Verify(old_token).ok());
}

TEST(JwtSecretsTest, SplitsOnCommasAndRefusesEmptyPieces) {
  EXPECT_EQ(SplitJwtSecrets("one"), (std::vector<std::string>{"one"}));
  EXPECT_EQ(SplitJwtSecrets("new,old"), (std::vector<std::string>{"new", "old"}));
  for (const char* bad : {"", ",", "new,", ",old", "new,,old"}) {
    EXPECT_EQ(SplitJwtSecrets(bad), std::nullopt) << bad;
  }
}

TEST(OidcConfigTest, NamesWhatIsWrong) {
  OidcConfig config;
  EXPECT_EQ(ValidateOidcConfig(config), std::nullopt);
  config.client_id = "docgate";
  EXPECT_NE(ValidateOidcConfig(config).value_or("").find("need DOCGATE_OIDC_ISSUER"),
            std::string::npos);
  config.issuer = "https://login.example.cn/realms/kb";
  EXPECT_EQ(ValidateOidcConfig(config), std::nullopt);
  config.issuer = "http://login.example.cn/realms/kb";
  EXPECT_NE(ValidateOidcConfig(config).value_or("").find("use https://"), std::string::npos);
  config.issuer = "http://127.0.0.1:9000";
  EXPECT_EQ(ValidateOidcConfig(config), std::nullopt);
  config.issuer = "ldap://example.cn";
  EXPECT_NE(ValidateOidcConfig(config), std::nullopt);
  config.issuer = "https://login.example.cn";
  config.client_id.clear();
  EXPECT_NE(ValidateOidcConfig(config).value_or("").find("DOCGATE_OIDC_AUDIENCE"),
            std::string::npos);
  config.audience = "api://docgate";
  for (const char* bad : {"writers", "=author", "writers=owner", "writers=author,"}) {
    config.role_map = bad;
    EXPECT_NE(ValidateOidcConfig(config).value_or("").find("DOCGATE_OIDC_ROLE_MAP"),
              std::string::npos)
        << bad;
  }
  config.role_map = "kb-writers=author,研发部=reviewer";
  EXPECT_EQ(ValidateOidcConfig(config), std::nullopt);
  config.roles_claim = "realm_access..roles";
  EXPECT_NE(ValidateOidcConfig(config), std::nullopt);
}

}  // namespace
}  // namespace docgate
