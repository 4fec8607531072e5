#include "core/redact.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace docgate {
namespace {

TEST(RedactUrlTest, ThePasswordOfTheUserinfoIsReplaced) {
  EXPECT_EQ(RedactUrl("postgresql://docgate:secret@db.internal:5432/"
                      "docgate?sslmode=require"),
            "postgresql://docgate:***@db.internal:5432/docgate?sslmode=require");
  EXPECT_EQ(RedactUrl("amqps://user:p%40ss@mq:5671/%2F"), "amqps://user:***@mq:5671/%2F");
  EXPECT_EQ(RedactUrl("redis://:only-a-password@127.0.0.1:6379/0"),
            "redis://:***@127.0.0.1:6379/0");
  // An unescaped '@' inside the password: the userinfo ends at the last '@' of
  // the authority.
  EXPECT_EQ(RedactUrl("mongodb://u:a@b@host/db"), "mongodb://u:***@host/db");
}

TEST(RedactUrlTest, PasswordQueryParametersAreReplaced) {
  EXPECT_EQ(RedactUrl("postgresql://db/"
                      "docgate?user=u&password=hunter2&sslmode=verify-full"),
            "postgresql://db/docgate?user=u&password=***&sslmode=verify-full");
  EXPECT_EQ(RedactUrl("postgresql://u:one@db/x?password=two"),
            "postgresql://u:***@db/x?password=***");
}

TEST(RedactUrlTest, EveryQueryParameterNamedSomethingPasswordIsReplaced) {
  const std::string url =
      "redis+sentinel://app:master-pw@s1:26379,s2/mymaster"
      "?sentinel_username=watcher&sentinel_password=s%40ntinel-pw";
  EXPECT_EQ(RedactUrl(url),
            "redis+sentinel://app:***@s1:26379,s2/mymaster"
            "?sentinel_username=watcher&sentinel_password=***");
  EXPECT_EQ(RedactUrl("x://h/?Sentinel_PASSWORD=a&passwords=b&password_file=c&Password=d"),
            "x://h/?Sentinel_PASSWORD=***&passwords=b&password_file=c&Password=***");
  EXPECT_EQ(RedactSecretsOf("AUTH s@ntinel-pw and s%40ntinel-pw, master-pw", url),
            "AUTH *** and ***, ***");
  const std::vector<std::string> passwords = PasswordsOf(url);
  EXPECT_NE(std::find(passwords.begin(), passwords.end(), "s@ntinel-pw"), passwords.end());
  EXPECT_EQ(std::find(passwords.begin(), passwords.end(), "watcher"), passwords.end());
}

TEST(RedactUrlTest, UrlsWithoutSecretsAreUnchanged) {
  for (const char *url : {"sqlite://./data/docgate.db", "postgresql://docgate@db/docgate",
                          "redis://127.0.0.1:6379/0", "postgresql://db:5432/x?user=u", "", "::"}) {
    EXPECT_EQ(RedactUrl(url), url);
  }
}

TEST(RedactSecretsOfTest, EveryOccurrenceAsWrittenAndDecodedIsReplaced) {
  const std::string url = "postgresql://postgres:s3cr%40t@[::1/db";
  EXPECT_EQ(RedactSecretsOf("missing ] in \"postgresql://postgres:s3cr%40t@[::1/db\"", url),
            "missing ] in \"postgresql://postgres:***@[::1/db\"");
  EXPECT_EQ(RedactSecretsOf("password s3cr@t rejected; again s3cr@t", url),
            "password *** rejected; again ***");
  EXPECT_EQ(RedactSecretsOf("nothing to hide", "postgresql://u@db/x"), "nothing to hide");
}

// Found by fuzz/redact_fuzz.cpp (fuzz/regressions/redact/): with an '@' after the userinfo (in
// the path, say), the password was taken to run to that last '@', and the password alone - which
// libpq echoes when its escape is malformed - was left in the message.
TEST(RedactSecretsOfTest, APasswordBeforeALaterAtIsReplacedToo) {
  EXPECT_EQ(
      RedactSecretsOf("invalid percent-encoded token: \"pa%zz\"", "postgresql://u:pa%zz@host/db@x"),
      "invalid percent-encoded token: \"***\"");
  EXPECT_EQ(RedactSecretsOf("s3cret and s3cret@host/db@x", "postgresql://u:s3cret@host/db@x"),
            "*** and ***@x");
  // RedactUrl still hides all that may be the password.
  EXPECT_EQ(RedactUrl("postgresql://u:s3cret@host/db@x"), "postgresql://u:***@x");
}

TEST(SecretPiecesTest, AWholeSecretAndEveryRunOfEightBytesOfItAreReplaced) {
  const SecretPieces pieces({"sk-4f9a2c7e1b8d3a6f"});
  EXPECT_EQ(pieces.Redact("key sk-4f9a2c7e1b8d3a6f refused"), "key *** refused");
  // Cut at the end of a quoted message, or quoted from the middle.
  EXPECT_EQ(pieces.Redact("key sk-4f9a2c7e1..."), "key ***...");
  EXPECT_EQ(pieces.Redact("(2c7e1b8d3a6f)"), "(***)");
  // Seven bytes are not a piece: the provider's own mask stays readable.
  EXPECT_EQ(pieces.Redact("Incorrect API key provided: sk-4f9a****3a6f"),
            "Incorrect API key provided: sk-4f9a****3a6f");
  EXPECT_EQ(pieces.Redact("no secret here"), "no secret here");
}

TEST(SecretPiecesTest, NoRunOfEightBytesSurvivesWhereverTheSecretIsCut) {
  const std::string secret = "k3y-Z8q2-w9Lm-47Tx-pR5v";
  const SecretPieces pieces({secret, "another-secret-value"});
  for (std::size_t from = 0; from < secret.size(); ++from) {
    for (std::size_t to = from; to <= secret.size(); ++to) {
      const std::string logged =
          pieces.Redact("said: " + secret.substr(from, to - from) + secret.substr(0, from) + ".");
      for (std::size_t at = 0; at + SecretPieces::kMinSecretPiece <= secret.size(); ++at) {
        EXPECT_EQ(logged.find(secret.substr(at, SecretPieces::kMinSecretPiece)), std::string::npos)
            << logged;
      }
    }
  }
}

TEST(SecretPiecesTest, SecretsShorterThanAPieceAreNotLookedFor) {
  const SecretPieces pieces({"guest", ""});
  EXPECT_TRUE(pieces.empty());
  EXPECT_EQ(pieces.Redact("guest logged in"), "guest logged in");
}

TEST(SecretPiecesTest, TheLongestPieceOfAnySecretIsReplacedWhole) {
  const SecretPieces pieces({"abcdefgh", "abcdefghijklmnop"});
  EXPECT_EQ(pieces.Redact("xabcdefghijklmnopx"), "x***x");
  EXPECT_EQ(pieces.Redact("abcdefghabcdefgh"), "******");
}

}  // namespace
}  // namespace docgate
