// OpenAiEmbedder against a real HTTP(S) server speaking the OpenAI-style embeddings API
// (tests/support/embeddings_test_server.h): batching, order, normalisation, retries with
// Retry-After and backoff, refused inputs, bad answers, the breaker, credentials, timeouts,
// bounded concurrency, kept-alive connections and certificate checks.

#include "adapters/openai/openai_embedder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/redact.h"
#include "core/utf8.h"
#include "support/embeddings_test_server.h"
#include "support/temp_dir.h"

namespace docgate {
namespace {

using std::chrono::milliseconds;
using testing::EmbeddingsFault;
using testing::EmbeddingsTestServer;
using testing::EmbeddingsTestServerOptions;

// The waits the embedder asked for between attempts, instead of sleeping them.
class RecordedWaits {
 public:
  OpenAiEmbedder::Wait Recorder() {
    return [this](milliseconds wait) {
      std::lock_guard lock(mutex_);
      waits_.push_back(wait);
    };
  }
  std::vector<milliseconds> waits() const {
    std::lock_guard lock(mutex_);
    return waits_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<milliseconds> waits_;
};

EmbeddingsConfig ConfigFor(const EmbeddingsTestServer& server) {
  EmbeddingsConfig config;
  config.url = server.url();
  config.model = server.options().model;
  config.dimensions = server.options().dimensions;
  config.batch = 32;
  config.request_timeout = std::chrono::seconds(20);
  return config;
}

std::vector<float> Normalised(std::vector<float> vector) {
  double norm = 0;
  for (const float v : vector) norm += static_cast<double>(v) * v;
  for (float& v : vector) v = static_cast<float>(v / std::sqrt(norm));
  return vector;
}

double Dot(const std::vector<float>& a, const std::vector<float>& b) {
  double dot = 0;
  for (std::size_t i = 0; i < a.size(); ++i) dot += static_cast<double>(a[i]) * b[i];
  return dot;
}

void ExpectVectorOf(const std::string& text, const std::vector<float>& vector, int dimensions) {
  const std::vector<float> expected = Normalised(EmbeddingsTestServer::VectorOf(text, dimensions));
  ASSERT_EQ(vector.size(), expected.size()) << text;
  for (std::size_t i = 0; i < vector.size(); ++i) {
    ASSERT_NEAR(vector[i], expected[i], 1e-6) << text << " at " << i;
  }
}

std::vector<std::string> Paragraphs(int count) {
  std::vector<std::string> texts;
  for (int i = 0; i < count; ++i) {
    texts.push_back(i % 2 == 0 ? "审核通过后触发切片、向量化与索引，段落 " + std::to_string(i)
                               : "Approval triggers chunking and embedding, paragraph " +
                                     std::to_string(i));
  }
  return texts;
}

TEST(OpenAiEmbedderTest, EmbedsInBatchesInTheInputsOrderAsUnitVectors) {
  EmbeddingsTestServer server;
  OpenAiEmbedder embedder(ConfigFor(server));
  const std::vector<std::string> texts = Paragraphs(70);

  const EmbeddedBatch batch = embedder.Embed(texts);

  EXPECT_EQ(server.batch_sizes(), (std::vector<std::size_t>{32, 32, 6}));
  ASSERT_EQ(batch.vectors.size(), texts.size());
  ASSERT_EQ(batch.rejections.size(), texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    EXPECT_TRUE(batch.rejections[i].empty());
    ExpectVectorOf(texts[i], batch.vectors[i], server.options().dimensions);
    EXPECT_NEAR(Dot(batch.vectors[i], batch.vectors[i]), 1.0, 1e-5);
  }
  std::int64_t tokens = 0;  // the server counts a token per code point
  for (const std::string& text : texts) tokens += static_cast<std::int64_t>(*Utf8Length(text));
  EXPECT_EQ(batch.tokens, tokens);
  EXPECT_EQ(embedder.counters().tokens.load(), static_cast<std::uint64_t>(tokens));
  EXPECT_EQ(embedder.counters().inputs.load(), 70U);
  EXPECT_EQ(embedder.counters().requests.load(), 3U);
  EXPECT_EQ(server.inputs_embedded(), 70U);
  EXPECT_EQ(server.connections(), 1U) << "one kept-alive connection serves the three requests";
}

TEST(OpenAiEmbedderTest, TheTestServersVectorsPutSimilarTextsNearer) {
  EmbeddingsTestServer server;
  OpenAiEmbedder embedder(ConfigFor(server));
  const EmbeddedBatch batch = embedder.Embed(
      {"审核通过后触发向量化", "审核通过后触发索引", "Redis lock released by its owner"});
  EXPECT_GT(Dot(batch.vectors[0], batch.vectors[1]), Dot(batch.vectors[0], batch.vectors[2]) + 0.3);
}

TEST(OpenAiEmbedderTest, TooManyRequestsIsRetriedAfterTheServersRetryAfter) {
  EmbeddingsTestServer server;
  RecordedWaits waits;
  OpenAiEmbedder embedder(ConfigFor(server), waits.Recorder());
  server.FailNext(2, EmbeddingsFault::kTooManyRequests, 3);

  const EmbeddedBatch batch = embedder.Embed({"知识库"});

  ExpectVectorOf("知识库", batch.vectors[0], server.options().dimensions);
  EXPECT_EQ(waits.waits(), (std::vector<milliseconds>{milliseconds(3000), milliseconds(3000)}));
  EXPECT_EQ(server.requests(), 3U);
  EXPECT_EQ(server.embedded_texts(), (std::map<std::string, int>{{"知识库", 1}}));
}

TEST(OpenAiEmbedderTest, ServerErrorsBackOffExponentiallyWithJitter) {
  EmbeddingsTestServer server;
  RecordedWaits waits;
  EmbeddingsConfig config = ConfigFor(server);
  config.retry_initial = milliseconds(200);
  config.max_attempts = 4;
  OpenAiEmbedder embedder(config, waits.Recorder());
  server.FailNext(1, EmbeddingsFault::kInternalError);
  server.FailNext(1, EmbeddingsFault::kUnavailable);  // without Retry-After: the backoff decides
  server.FailNext(1, EmbeddingsFault::kInternalError);

  embedder.Embed({"消息队列"});

  const std::vector<milliseconds> recorded = waits.waits();
  ASSERT_EQ(recorded.size(), 3U);
  for (std::size_t i = 0; i < recorded.size(); ++i) {
    const milliseconds ceiling = milliseconds(200) * (1 << i);
    EXPECT_GE(recorded[i], ceiling / 2) << "attempt " << i + 1;
    EXPECT_LE(recorded[i], ceiling) << "attempt " << i + 1;
  }
  EXPECT_EQ(server.requests(), 4U);
}

TEST(OpenAiEmbedderTest, ACallThatFailsEveryAttemptOpensTheBreakerUntilAProbeSucceeds) {
  EmbeddingsTestServer server;
  RecordedWaits waits;
  EmbeddingsConfig config = ConfigFor(server);
  config.max_attempts = 3;
  config.breaker_initial = milliseconds(1);
  config.breaker_max = milliseconds(1);
  OpenAiEmbedder embedder(config, waits.Recorder());
  server.FailNext(3, EmbeddingsFault::kUnavailable);

  EXPECT_THROW(embedder.Embed({"权限"}), EmbeddingsUnavailable);
  EXPECT_EQ(server.requests(), 3U);
  EXPECT_FALSE(embedder.available());
  EXPECT_EQ(embedder.counters().unavailable.load(), 1U);

  // The breaker lets one probe through once its interval (1 ms) has passed; until then calls
  // fail without a request.
  std::uint64_t refused_at_once = 0;
  for (;;) {
    try {
      embedder.Embed({"权限"});
      break;
    } catch (const EmbeddingsUnavailable&) {
      ++refused_at_once;
      ASSERT_LT(refused_at_once, 1'000'000U) << "the breaker never let a probe through";
    }
  }
  EXPECT_EQ(server.requests(), 4U) << "refused calls sent nothing; the probe sent one request";
  EXPECT_TRUE(embedder.available());
}

TEST(OpenAiEmbedderTest, ARetryAfterLongerThanRetryMaxEndsTheCallWithThatHint) {
  EmbeddingsTestServer server;
  RecordedWaits waits;
  EmbeddingsConfig config = ConfigFor(server);
  config.retry_max = std::chrono::seconds(30);
  OpenAiEmbedder embedder(config, waits.Recorder());
  server.FailNext(1, EmbeddingsFault::kTooManyRequests, 120);

  try {
    embedder.Embed({"值班"});
    FAIL() << "a 429 asking for 120 s was waited inside the call";
  } catch (const EmbeddingsUnavailable& e) {
    EXPECT_EQ(e.retry_after(), std::chrono::seconds(120));
    EXPECT_NE(std::string(e.what()).find("429"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(waits.waits().empty());
  EXPECT_EQ(server.requests(), 1U);
}

TEST(OpenAiEmbedderTest, AnAnswerThatIsNotExactlyWhatWasAskedIsNeverReturned) {
  for (const EmbeddingsFault fault :
       {EmbeddingsFault::kWrongDimensions, EmbeddingsFault::kMalformedJson, EmbeddingsFault::kNaN,
        EmbeddingsFault::kZeros, EmbeddingsFault::kMissingVector, EmbeddingsFault::kNoAnswer}) {
    SCOPED_TRACE(static_cast<int>(fault));
    EmbeddingsTestServer server;
    RecordedWaits waits;
    EmbeddingsConfig config = ConfigFor(server);
    config.max_attempts = 2;
    {
      OpenAiEmbedder embedder(config, waits.Recorder());
      server.FailNext(1, fault);
      const EmbeddedBatch batch = embedder.Embed({"向量", "索引"});
      ExpectVectorOf("向量", batch.vectors[0], config.dimensions);
      ExpectVectorOf("索引", batch.vectors[1], config.dimensions);
      EXPECT_EQ(server.requests(), 2U) << "the bad answer was tried again";
    }
    OpenAiEmbedder embedder(config, waits.Recorder());
    server.FailNext(2, fault);
    EXPECT_THROW(embedder.Embed({"向量"}), EmbeddingsUnavailable);
    EXPECT_EQ(server.requests(), 4U);
  }
}

TEST(OpenAiEmbedderTest, InputsTheServerRefusesAreFoundByHalvesAndTheOthersEmbedded) {
  EmbeddingsTestServer server;
  server.RefuseInputsLongerThan(200);
  OpenAiEmbedder embedder(ConfigFor(server));
  std::vector<std::string> texts = Paragraphs(10);
  texts[6] = std::string(300, 'x');

  const EmbeddedBatch batch = embedder.Embed(texts);

  for (std::size_t i = 0; i < texts.size(); ++i) {
    if (i == 6) {
      EXPECT_TRUE(batch.vectors[i].empty());
      EXPECT_NE(batch.rejections[i].find("longer than the model's context"), std::string::npos)
          << batch.rejections[i];
    } else {
      EXPECT_TRUE(batch.rejections[i].empty()) << i;
      ExpectVectorOf(texts[i], batch.vectors[i], server.options().dimensions);
    }
  }
  EXPECT_EQ(server.inputs_embedded(), 9U) << "every other input embedded once";
  for (const auto& [text, times] : server.embedded_texts()) EXPECT_EQ(times, 1) << text;
  EXPECT_EQ(embedder.counters().rejected_inputs.load(), 1U);
  EXPECT_TRUE(embedder.available()) << "a refused input is not the provider failing";
}

TEST(OpenAiEmbedderTest, AWrongKeyOrModelFailsAtOnceAndTheKeyIsNeverInTheMessage) {
  EmbeddingsTestServerOptions options;
  options.api_key = "the-right-key";
  EmbeddingsTestServer server(options);
  RecordedWaits waits;
  EmbeddingsConfig config = ConfigFor(server);
  config.api_key = "sk-wrong-secret-value";
  try {
    OpenAiEmbedder(config, waits.Recorder()).Embed({"文档"});
    FAIL() << "a 401 embedded something";
  } catch (const EmbeddingsUnavailable& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("401"), std::string::npos) << what;
    EXPECT_NE(what.find("DOCGATE_EMBEDDINGS_API_KEY"), std::string::npos) << what;
    EXPECT_EQ(what.find("sk-wrong-secret-value"), std::string::npos) << what;
  }
  EXPECT_EQ(server.requests(), 1U) << "a refused key is not retried";

  config.api_key = "the-right-key";
  config.model = "no-such-model";
  try {
    OpenAiEmbedder(config, waits.Recorder()).Embed({"文档"});
    FAIL() << "an unknown model embedded something";
  } catch (const EmbeddingsUnavailable& e) {
    EXPECT_NE(std::string(e.what()).find("DOCGATE_EMBEDDINGS_URL and _MODEL"), std::string::npos)
        << e.what();
  }
  config.model = server.options().model;
  EXPECT_EQ(OpenAiEmbedder(config, waits.Recorder()).Embed({"文档"}).vectors.size(), 1U);
  EXPECT_TRUE(waits.waits().empty());
}

// The message is cut at 300 bytes: the key is redacted before, so no part of it survives the cut,
// wherever the provider put it.
TEST(OpenAiEmbedderTest, NoPieceOfAKeyTheProviderEchoesSurvivesTheCutOfItsMessage) {
  const std::string key = "sk-proj-7Hq2Xv9Lm4Tz8Rw3Kd6Pb1Nc5Yf0Ga";
  for (const std::size_t after :
       {std::size_t{0}, std::size_t{270}, std::size_t{285}, std::size_t{292}, std::size_t{299}}) {
    EmbeddingsTestServerOptions options;
    options.api_key = "the-right-key";
    options.echo_key_after = after;
    EmbeddingsTestServer server(options);
    EmbeddingsConfig config = ConfigFor(server);
    config.api_key = key;
    try {
      OpenAiEmbedder(config).Embed({"文档"});
      FAIL() << "a 401 embedded something";
    } catch (const EmbeddingsUnavailable& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("Incorrect API key provided"), std::string::npos) << what;
      for (std::size_t at = 0; at + SecretPieces::kMinSecretPiece <= key.size(); ++at) {
        EXPECT_EQ(what.find(key.substr(at, SecretPieces::kMinSecretPiece)), std::string::npos)
            << "key echoed after " << after << " bytes: " << what;
      }
    }
  }
}

TEST(OpenAiEmbedderTest, AServerSlowerThanTheTimeoutFailsTheAttempt) {
  EmbeddingsTestServer server;
  server.SetDelay(std::chrono::seconds(30));
  EmbeddingsConfig config = ConfigFor(server);
  config.request_timeout = milliseconds(200);
  config.max_attempts = 1;
  OpenAiEmbedder embedder(config);
  try {
    embedder.Embed({"慢"});
    FAIL() << "no timeout";
  } catch (const EmbeddingsUnavailable& e) {
    EXPECT_NE(std::string(e.what()).find("within 200 ms"), std::string::npos) << e.what();
  }
}

TEST(OpenAiEmbedderTest, RequestsInFlightNeverExceedTheConcurrency) {
  EmbeddingsTestServer server;
  server.SetDelay(milliseconds(50));
  EmbeddingsConfig config = ConfigFor(server);
  config.concurrency = 2;
  OpenAiEmbedder embedder(config);
  std::vector<std::thread> callers;
  for (int i = 0; i < 6; ++i) {
    callers.emplace_back([&embedder, i] { embedder.Embed({"并发 " + std::to_string(i)}); });
  }
  for (std::thread& caller : callers) caller.join();
  EXPECT_EQ(server.requests(), 6U);
  EXPECT_LE(server.max_in_flight(), 2);
  EXPECT_LE(server.connections(), 2U) << "connections are kept and reused";
}

TEST(OpenAiEmbedderTest, ShutdownEndsAWaitForRetryAtOnce) {
  EmbeddingsTestServer server;
  EmbeddingsConfig config = ConfigFor(server);
  config.retry_max = std::chrono::hours(1);
  OpenAiEmbedder embedder(config);  // waits for real
  server.FailNext(1, EmbeddingsFault::kTooManyRequests, 3600);
  std::string error;
  std::thread caller([&] {
    try {
      embedder.Embed({"停止"});
    } catch (const EmbeddingsUnavailable& e) {
      error = e.what();
    }
  });
  while (server.requests() == 0) std::this_thread::yield();
  embedder.Shutdown();
  caller.join();  // an hour's Retry-After, cut short
  EXPECT_NE(error.find("stopping"), std::string::npos) << error;
}

// A throwaway certificate for 127.0.0.1, made with the openssl command (Debian's openssl).
struct ThrowawayCertificate {
  TempDir dir;
  std::string cert = (dir.path() / "cert.pem").string();
  std::string key = (dir.path() / "key.pem").string();
  bool made = std::system(("openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 "
                           "-addext subjectAltName=IP:127.0.0.1 -keyout " +
                           key + " -out " + cert + " >/dev/null 2>&1")
                              .c_str()) == 0;
};

TEST(OpenAiEmbedderTest, HttpsChecksTheServersCertificate) {
  ThrowawayCertificate certificate;
  ASSERT_TRUE(certificate.made) << "the openssl command (scripts/deps.sh installs it) failed";
  EmbeddingsTestServerOptions options;
  options.cert_file = certificate.cert;
  options.key_file = certificate.key;
  EmbeddingsTestServer server(options);
  ASSERT_EQ(server.url().rfind("https://", 0), 0U);
  RecordedWaits waits;
  EmbeddingsConfig config = ConfigFor(server);
  config.max_attempts = 1;

  try {
    OpenAiEmbedder(config, waits.Recorder()).Embed({"证书"});
    FAIL() << "a certificate the system does not trust was accepted";
  } catch (const EmbeddingsUnavailable& e) {
    EXPECT_NE(std::string(e.what()).find("TLS"), std::string::npos) << e.what();
  }
  EXPECT_EQ(server.inputs_embedded(), 0U);

  config.ca_file = certificate.cert;
  const EmbeddedBatch batch = OpenAiEmbedder(config, waits.Recorder()).Embed({"证书"});
  ExpectVectorOf("证书", batch.vectors[0], config.dimensions);
}

}  // namespace
}  // namespace docgate
