#include "core/redact.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace docgate
