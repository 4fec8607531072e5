#include <gtest/gtest.h>

#include <stdexcept>

#include "adapters/openai/embeddings_config.h"
#include "adapters/openai/embeddings_url.h"

namespace docgate {
namespace {

TEST(EmbeddingsUrlTest, TakesTheSchemeHostPortAndBasePath) {
  const EmbeddingsUrl local = ParseEmbeddingsUrl("http://127.0.0.1:8000/v1/");
  EXPECT_FALSE(local.tls);
  EXPECT_EQ(local.host, "127.0.0.1");
  EXPECT_EQ(local.port, 8000);
  EXPECT_EQ(EmbeddingsTarget(local), "/v1/embeddings");
  EXPECT_EQ(local.HostHeader(), "127.0.0.1:8000");

  const EmbeddingsUrl hosted = ParseEmbeddingsUrl("https://api.example.com/v1");
  EXPECT_TRUE(hosted.tls);
  EXPECT_EQ(hosted.port, 443);
  EXPECT_EQ(hosted.HostHeader(), "api.example.com");

  const EmbeddingsUrl root = ParseEmbeddingsUrl("http://[::1]:11434");
  EXPECT_EQ(root.host, "::1");
  EXPECT_EQ(EmbeddingsTarget(root), "/embeddings");
  EXPECT_EQ(root.HostHeader(), "[::1]:11434");
}

TEST(EmbeddingsUrlTest, RefusesWhatIsNotABaseUrlWithoutEchoingIt) {
  for (const char* url :
       {"ftp://host/v1", "host:8000/v1", "http://", "http://:80/v1", "http://host:0/v1",
        "http://host:65536", "http://host:/v1", "http://host/v1?key=1", "http://[::1/v1"}) {
    EXPECT_THROW(ParseEmbeddingsUrl(url), std::invalid_argument) << url;
  }
  try {
    ParseEmbeddingsUrl("https://user:s3cr3t@api.example.com/v1");
    FAIL() << "credentials in the URL were accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).find("s3cr3t"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("DOCGATE_EMBEDDINGS_API_KEY"), std::string::npos);
  }
}

TEST(EmbeddingsConfigTest, AnApiKeyGoesInClearOnlyToThisMachine) {
  EmbeddingsConfig config;
  config.model = "BAAI/bge-m3";
  config.dimensions = 1024;
  config.api_key = "sk-proj-7Hq2Xv9Lm4Tz8Rw3";
  for (const char* local :
       {"http://127.0.0.1:8000/v1", "http://127.8.9.10/v1", "http://localhost:11434/v1",
        "http://[::1]:8000/v1", "https://api.example.com/v1", "https://10.0.0.7/v1"}) {
    config.url = local;
    EXPECT_EQ(ValidateEmbeddingsConfig(config), std::nullopt) << local;
  }
  for (const char* remote : {"http://api.example.com/v1", "http://10.0.0.7:8000/v1",
                             "http://[2001:db8::1]/v1", "http://localhost.example.com/v1"}) {
    config.url = remote;
    const std::string problem = ValidateEmbeddingsConfig(config).value_or("");
    EXPECT_NE(problem.find("DOCGATE_EMBEDDINGS_API_KEY in clear"), std::string::npos) << remote;
    EXPECT_EQ(problem.find(config.api_key), std::string::npos) << problem;
  }
  config.api_key.clear();
  EXPECT_EQ(ValidateEmbeddingsConfig(config), std::nullopt) << "no key, nothing to leak";
}

TEST(EmbeddingsConfigTest, NoUrlIsNoEmbeddingsAndAUrlNeedsAModelAndDimensions) {
  EXPECT_EQ(ValidateEmbeddingsConfig({}), std::nullopt);
  EmbeddingsConfig config;
  config.url = "http://127.0.0.1:8000/v1";
  EXPECT_NE(ValidateEmbeddingsConfig(config).value_or("").find("DOCGATE_EMBEDDINGS_MODEL"),
            std::string::npos);
  config.model = "BAAI/bge-m3";
  EXPECT_NE(ValidateEmbeddingsConfig(config).value_or("").find("DOCGATE_EMBEDDINGS_DIMENSIONS"),
            std::string::npos);
  config.dimensions = 1024;
  EXPECT_EQ(ValidateEmbeddingsConfig(config), std::nullopt);

  const auto problem = [&](auto change) {
    EmbeddingsConfig changed = config;
    change(changed);
    return ValidateEmbeddingsConfig(changed).value_or("");
  };
  EXPECT_NE(problem([](auto& c) { c.url = "redis://x"; }).find("DOCGATE_EMBEDDINGS_URL"),
            std::string::npos);
  EXPECT_NE(problem([](auto& c) { c.batch = 0; }).find("DOCGATE_EMBEDDINGS_BATCH"),
            std::string::npos);
  EXPECT_NE(problem([](auto& c) { c.concurrency = 65; }).find("DOCGATE_EMBEDDINGS_CONCURRENCY"),
            std::string::npos);
  EXPECT_NE(problem([](auto& c) { c.dimensions = -3; }).find("DOCGATE_EMBEDDINGS_DIMENSIONS"),
            std::string::npos);
  EXPECT_NE(problem([](auto& c) { c.max_attempts = 0; }).find("DOCGATE_EMBEDDINGS_MAX_ATTEMPTS"),
            std::string::npos);
  EXPECT_NE(problem([](auto& c) {
              c.request_timeout = std::chrono::milliseconds(0);
            }).find("DOCGATE_EMBEDDINGS_TIMEOUT_MS"),
            std::string::npos);
  EXPECT_NE(problem([](auto& c) {
              c.breaker_max = std::chrono::milliseconds(1);
            }).find("DOCGATE_EMBEDDINGS_BREAKER_MAX_MS"),
            std::string::npos);
}

}  // namespace
}  // namespace docgate
