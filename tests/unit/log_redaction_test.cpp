#include "runtime/log_redaction.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

#include <algorithm>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace docgate {
namespace {

Config ConfigWithSecrets() {
  Config config;
  config.auth.jwt_secret = "jwt-9f8e7d6c5b4a39281706";
  config.embeddings.api_key = "sk-proj-7Hq2Xv9Lm4Tz8Rw3Kd6P";
  config.database.url = "postgresql://docgate:pg%2Fpass-Q4w8e2r6@db.internal/docgate";
  config.redis.url = "redis://:redis-pass-5Yh3Jk9L@cache.internal:6379/0";
  config.amqp.url = "amqp://guest:guest@broker.internal/%2F";
  return config;
}

bool Holds(const std::vector<std::string>& secrets, const std::string& secret) {
  return std::find(secrets.begin(), secrets.end(), secret) != secrets.end();
}

TEST(LogRedaction, TheSecretsOfAConfigAreItsSecretVariablesAndThePasswordsOfItsUrls) {
  const std::vector<std::string> secrets = SecretsOf(ConfigWithSecrets());
  EXPECT_TRUE(Holds(secrets, "jwt-9f8e7d6c5b4a39281706"));
  EXPECT_TRUE(Holds(secrets, "sk-proj-7Hq2Xv9Lm4Tz8Rw3Kd6P"));
  EXPECT_TRUE(Holds(secrets, "pg%2Fpass-Q4w8e2r6"));
  EXPECT_TRUE(Holds(secrets, "pg/pass-Q4w8e2r6")) << "percent-decoded too";
  EXPECT_TRUE(Holds(secrets, "redis-pass-5Yh3Jk9L"));
  EXPECT_TRUE(Holds(secrets, "guest"));
  EXPECT_FALSE(Holds(secrets, "docgate")) << "a user name is no secret";
  EXPECT_TRUE(SecretsOf(Config{}).empty()) << "the defaults hold no secret";
}

TEST(LogRedaction, NoLineOfTheLoggerHoldsAPieceOfASecret) {
  std::ostringstream out;
  spdlog::logger logger("redaction-test", std::make_shared<spdlog::sinks::ostream_sink_mt>(out));
  const Config config = ConfigWithSecrets();
  RedactLogLines(logger, SecretsOf(config), LogFormat::kText);

  logger.warn("embeddings: the server answered 401: Incorrect API key provided: {}...",
              config.embeddings.api_key.substr(0, 14));
  logger.error("postgres: connection to db.internal failed for password {}", "pg/pass-Q4w8e2r6");
  logger.info("redis: AUTH redis-pass-5Yh3 refused; guest may not log in");
  logger.info("approved 文档 42 at 审核");
  const std::string lines = out.str();

  EXPECT_NE(lines.find("Incorrect API key provided: ***..."), std::string::npos) << lines;
  EXPECT_NE(lines.find("for password ***"), std::string::npos) << lines;
  EXPECT_NE(lines.find("AUTH *** refused"), std::string::npos) << lines;
  EXPECT_NE(lines.find("guest may not log in"), std::string::npos)
      << "a secret shorter than a piece is not looked for: " << lines;
  EXPECT_NE(lines.find("approved 文档 42 at 审核"), std::string::npos) << lines;
  for (const std::string& secret : SecretsOf(config)) {
    for (std::size_t at = 0; at + SecretPieces::kMinSecretPiece <= secret.size(); ++at) {
      EXPECT_EQ(lines.find(secret.substr(at, SecretPieces::kMinSecretPiece)), std::string::npos)
          << lines;
    }
  }
}

}  // namespace
}  // namespace docgate
