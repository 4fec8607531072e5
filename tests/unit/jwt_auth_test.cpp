#include "adapters/http/jwt_auth.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <openssl/evp.h>

#include <chrono>
#include <string>

#include "e2e/token_forge.h"
#include "fakes/fake_clock.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

constexpr char kSecret[] = "unit-test-secret-0123456789abcdef";

// A token built by hand, so that tests control every byte: header, claims and signature.
std::string CraftText(const json& header, const std::string& claims,
                      const EVP_MD* md = EVP_sha256(), const std::string& secret = kSecret) {
  if (md == nullptr) return e2e::SigningInput(header.dump(), claims) + ".";
  return e2e::Hs256SignedByHand(header.dump(), claims, secret, md);
}

std::string Craft(const json& header, const json& claims, const EVP_MD* md = EVP_sha256(),
                  const std::string& secret = kSecret) {
  return CraftText(header, claims.dump(), md, secret);
}

class JwtAuthTest : public ::testing::Test {
 protected:
  std::int64_t NowSeconds() {
    return std::chrono::duration_cast<std::chrono::seconds>(clock_.Now().time_since_epoch()).count();
  }
  json Claims() { return {{"sub", "alice"}, {"roles", {"author"}}, {"exp", NowSeconds() + 60}}; }
  Result<Actor> Check(const std::string& token) { return verifier_.Authenticate("Bearer " + token); }
  void ExpectRejected(const std::string& token) {
    const auto actor = Check(token);
    ASSERT_FALSE(actor) << token;
    EXPECT_EQ(actor.error().code, ErrorCode::kUnauthenticated);
  }

  FakeClock clock_;
  JwtVerifier verifier_{{kSecret}, clock_};
};

TEST_F(JwtAuthTest, AcceptsTokensItSigns) {
  TokenClaims claims{"alice", {"author", "reviewer", "unknown-role"}, "Alice A.", clock_.Now() + 1h};
  const auto actor = Check(SignHs256Token(kSecret, claims, clock_.Now()));
  ASSERT_TRUE(actor) << actor.error().detail;
  EXPECT_EQ(actor->id, "alice");
  EXPECT_EQ(actor->name, "Alice A.");
  EXPECT_TRUE(actor->is_author);
  EXPECT_TRUE(actor->is_reviewer);
  EXPECT_FALSE(actor->is_admin);
}

TEST_F(JwtAuthTest, AcceptsHandCraftedHs256AndAnyCaseOfTheScheme) {
  const std::string token = Craft({{"alg", "HS256"}, {"typ", "JWT"}}, Claims());
  ASSERT_TRUE(Check(token));
  ASSERT_TRUE(verifier_.Authenticate("bearer " + token));
  ASSERT_TRUE(verifier_.Authenticate("BEARER  " + token + " "));
}

TEST_F(JwtAuthTest, TokenWithoutExpIsAccepted) {
  ASSERT_TRUE(Check(Craft({{"alg", "HS256"}}, {{"sub", "alice"}})));
}

TEST_F(JwtAuthTest, RejectsMissingOrMalformedHeaders) {
  for (const char* header : {"", "Bearer", "Bearer ", "Basic YWxpY2U6cHc=", "Token abc",
                             "Bearer abc", "Bearer a.b.c", "Bearer ...", "Bearer \xff\xfe"}) {
    const auto actor = verifier_.Authenticate(header);
    ASSERT_FALSE(actor) << header;
    EXPECT_EQ(actor.error().code, ErrorCode::kUnauthenticated);
  }
}

TEST_F(JwtAuthTest, RejectsAlgNone) {
  ExpectRejected(Craft({{"alg", "none"}}, Claims(), nullptr));
  ExpectRejected(Craft({{"alg", "none"}, {"typ", "JWT"}}, Claims(), nullptr));
  const std::string no_dot = Craft({{"alg", "none"}}, Claims(), nullptr);
  ExpectRejected(no_dot.substr(0, no_dot.size() - 1));
  ExpectRejected(Craft({{"alg", "None"}}, Claims(), nullptr));
  // `none` with a valid HS256 signature attached.
  ExpectRejected(Craft({{"alg", "none"}}, Claims()));
}

TEST_F(JwtAuthTest, RejectsOtherAlgorithmsEvenWithTheRightSecret) {
  ExpectRejected(Craft({{"alg", "HS384"}}, Claims(), EVP_sha384()));
  ExpectRejected(Craft({{"alg", "HS512"}}, Claims(), EVP_sha512()));
}

TEST_F(JwtAuthTest, RejectsForgedSignatures) {
  ExpectRejected(Craft({{"alg", "HS256"}}, Claims(), EVP_sha256(), "another-secret"));
  std::string token = Craft({{"alg", "HS256"}}, Claims());
  const auto sig = token.rfind('.') + 5;
  token[sig] = token[sig] == 'A' ? 'B' : 'A';
  ExpectRejected(token);
  // A payload swapped under a valid signature.
  const std::string good = Craft({{"alg", "HS256"}}, Claims());
  json admin = Claims();
  admin["roles"] = {"admin"};
  const std::string evil = Craft({{"alg", "HS256"}}, admin);
  const auto first_dot = good.find('.');
  const auto last_dot = good.rfind('.');
  ExpectRejected(good.substr(0, first_dot + 1) +
                 evil.substr(evil.find('.') + 1, evil.rfind('.') - evil.find('.') - 1) +
                 good.substr(last_dot));
}

TEST_F(JwtAuthTest, EnforcesExpAndNbfWithTheInjectedClock) {
  json claims = Claims();
  claims["exp"] = NowSeconds() + 10;
  const std::string token = Craft({{"alg", "HS256"}}, claims);
  ASSERT_TRUE(Check(token));
  clock_.Advance(9s);
  ASSERT_TRUE(Check(token));
  clock_.Advance(1s);
  ExpectRejected(token);

  json early = Claims();
  early["nbf"] = NowSeconds() + 5;
  const std::string later = Craft({{"alg", "HS256"}}, early);
  ExpectRejected(later);
  clock_.Advance(5s);
  ASSERT_TRUE(Check(later));
}

TEST_F(JwtAuthTest, RejectsBadlyTypedClaims) {
  const json bad[] = {
      {{"roles", {"author"}}},
      {{"sub", ""}},
      {{"sub", 42}},
      {{"sub", nullptr}},
      {{"sub", "alice"}, {"roles", "author"}},
      {{"sub", "alice"}, {"roles", {"author", 1}}},
      {{"sub", "alice"}, {"name", 5}},
      {{"sub", "alice"}, {"exp", "tomorrow"}},
      {{"sub", "alice"}, {"nbf", "later"}},
  };
  for (const auto& claims : bad) ExpectRejected(Craft({{"alg", "HS256"}}, claims));
}

TEST_F(JwtAuthTest, SubjectIsAtMost255BytesOfPrintableUtf8) {
  const std::string longest(kMaxSubjectBytes, 'a');
  const auto actor = Check(Craft({{"alg", "HS256"}}, {{"sub", longest}}));
  ASSERT_TRUE(actor) << actor.error().detail;
  EXPECT_EQ(actor->id, longest);
  // 85 three-byte characters are 255 bytes; one more is 258.
  std::string chinese;
  for (int i = 0; i < 85; ++i) chinese += "张";
  EXPECT_TRUE(Check(Craft({{"alg", "HS256"}}, {{"sub", chinese}})));
  ExpectRejected(Craft({{"alg", "HS256"}}, {{"sub", chinese + "张"}}));
  ExpectRejected(Craft({{"alg", "HS256"}}, {{"sub", longest + "a"}}));
  EXPECT_THROW(SignHs256Token(kSecret, TokenClaims{longest + "a", {}, {}, {}}, clock_.Now()),
               std::invalid_argument);

  for (const std::string& bad :
       {std::string("ali\nce"), std::string("a\0b", 3), std::string("\x1b[2J"),
        std::string("bob\r"), std::string("\x7f"), std::string("\xc2\x85")}) {
    ExpectRejected(Craft({{"alg", "HS256"}}, {{"sub", bad}}));
  }
  // Invalid UTF-8 (a lone 0xFF, a surrogate) in the claims: libjwt passes the bytes through.
  ExpectRejected(CraftText({{"alg", "HS256"}}, "{\"sub\":\"\xff\"}"));
  ExpectRejected(CraftText({{"alg", "HS256"}}, "{\"sub\":\"\xed\xa0\x80\"}"));
  ExpectRejected(CraftText({{"alg", "HS256"}}, R"({"sub":"\ud800"})"));

  const auto zhang = Check(Craft({{"alg", "HS256"}}, {{"sub", "张三"}, {"name", "张三 (审核)"}}));
  ASSERT_TRUE(zhang) << zhang.error().detail;
  EXPECT_EQ(zhang->id, "张三");
}

TEST_F(JwtAuthTest, NameHasNoControlCharacters) {
  ExpectRejected(Craft({{"alg", "HS256"}}, {{"sub", "alice"}, {"name", "Alice\nAdmin"}}));
  ExpectRejected(Craft({{"alg", "HS256"}}, {{"sub", "alice"}, {"name", std::string("A\0", 2)}}));
  EXPECT_TRUE(Check(Craft({{"alg", "HS256"}}, {{"sub", "alice"}, {"name", nullptr}})));
}

TEST_F(JwtAuthTest, SubjectProblemExplainsTheLimit) {
  EXPECT_FALSE(SubjectProblem("alice"));
  EXPECT_FALSE(SubjectProblem("张三"));
  EXPECT_EQ(SubjectProblem(std::string(256, 'a')),
            "token `sub` must be at most 255 bytes, got 256");
  EXPECT_EQ(SubjectProblem(""), "token `sub` must be a non-empty string");
  EXPECT_EQ(SubjectProblem("a\tb"), "token `sub` must be UTF-8 without control characters");
}

// Found by fuzz/jwt_fuzz.cpp (fuzz/regressions/jwt/): claims that are not UTF-8 made
// SignHs256Token throw nlohmann's type_error, and claims the verifier refuses (a `name` with a
// control character) were signed into tokens that could only ever be 401.
TEST_F(JwtAuthTest, SignsOnlyClaimsTheVerifierAccepts) {
  const auto sign = [&](TokenClaims claims) {
    return SignHs256Token(kSecret, claims, clock_.Now());
  };
  EXPECT_THROW(sign({"\xe5\xbc", {}, {}, {}}), std::invalid_argument);
  EXPECT_THROW(sign({"ali\nce", {}, {}, {}}), std::invalid_argument);
  EXPECT_THROW(sign({"", {}, {}, {}}), std::invalid_argument);
  EXPECT_THROW(sign({"alice", {}, "\xff", {}}), std::invalid_argument);
  EXPECT_THROW(sign({"alice", {}, "Alice\tA.", {}}), std::invalid_argument);
  EXPECT_THROW(sign({"alice", {"author", "\xe4"}, {}, {}}), std::invalid_argument);
  EXPECT_THROW(sign({"alice", {std::string("a\0b", 3)}, {}, {}}), std::invalid_argument);
  // Found by fuzz/jwt_fuzz.cpp too (fuzz/regressions/jwt/sign-token-above-8-kib): a token above
  // the 8 KiB the verifier reads was signed, to be refused as too long.
  EXPECT_THROW(sign({"alice", std::vector<std::string>(1000, "reviewer"), {}, {}}),
               std::invalid_argument);

  const auto zhang =
      Check(sign({"张三", {"reviewer", "自定义"}, "张三 (审核)", clock_.Now() + 1h}));
  ASSERT_TRUE(zhang) << zhang.error().detail;
  EXPECT_EQ(zhang->id, "张三");
  EXPECT_EQ(zhang->name, "张三 (审核)");
  EXPECT_TRUE(zhang->is_reviewer);
  EXPECT_FALSE(zhang->is_author);
}

TEST_F(JwtAuthTest, EmptySecretIsRefused) {
  EXPECT_THROW(JwtVerifier({""}, clock_), std::invalid_argument);
  EXPECT_THROW(JwtVerifier({}, clock_), std::invalid_argument);
  EXPECT_THROW(SignHs256Token("", TokenClaims{"alice", {}, {}, {}}, clock_.Now()),
               std::invalid_argument);
}

}  // namespace
}  // namespace docgate
