#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "adapters/openai/embeddings_config.h"
#include "adapters/openai/embeddings_url.h"
#include "adapters/web/http_connection.h"
#include "app/ports/embedder.h"
#include "core/circuit_breaker.h"
#include "core/redact.h"

namespace docgate {

// What an OpenAiEmbedder did since it was made; read at any time (metrics).
struct EmbedderCounters {
  std::atomic<std::uint64_t> requests{0};         // HTTP requests sent, retries included
  std::atomic<std::uint64_t> failed_requests{0};  // ... answered with no usable vectors
  std::atomic<std::uint64_t> inputs{0};           // inputs embedded (vectors received and kept)
  std::atomic<std::uint64_t> rejected_inputs{0};  // inputs the provider refused for good
  std::atomic<std::uint64_t> tokens{0};           // as the provider's `usage` reported
  std::atomic<std::uint64_t> unavailable{0};      // calls that ended in EmbeddingsUnavailable
};

// The Embedder of any server speaking the OpenAI-style embeddings API: `POST {url}/embeddings`
// with `{"model", "input": [...]}`, answered by `{"data": [{"index", "embedding"}], "usage"}`.
//
// - Inputs go `batch` per request, each request on one of `concurrency` kept-alive connections
//   (callers beyond that wait for one).
// - A request answered 408, 409, 429 or 5xx, not answered in time, or answered with something that
//   is not `batch` vectors of `dimensions` finite, non-zero numbers is tried again, up to
//   `max_attempts`: after the server's `Retry-After` when it sent one, else an exponential backoff
//   with jitter, both capped at retry_max.
// - A request answered 400, 413 or 422 is split in halves until the inputs the server refuses are
//   alone: those are rejected (EmbeddedBatch::rejections), the others embedded.
// - 401 and 403 (the key), 404 (the URL or the model) and the other 4xx fail the call.
// - A call whose attempts all failed opens the circuit breaker: calls then fail at once with
//   EmbeddingsUnavailable until a probe succeeds (core/circuit_breaker.h).
// The API key is sent as `Authorization: Bearer` and appears in no message. Thread-safe.
class OpenAiEmbedder final : public Embedder {
 public:
  // How the embedder waits between attempts; the default sleeps (cut short by Shutdown). Tests
  // pass one that records the waits instead.
  using Wait = std::function<void(std::chrono::milliseconds)>;

  // Throws std::runtime_error when the CA file cannot be read. Connects to nothing yet.
  explicit OpenAiEmbedder(EmbeddingsConfig config, Wait wait = {});
  ~OpenAiEmbedder() override;

  const std::string& model() const override { return config_.model; }
  int dimensions() const override { return config_.dimensions; }
  int max_batch() const override { return config_.batch; }
  EmbeddedBatch Embed(const std::vector<std::string>& inputs) override;

  // Ends every wait between attempts at once and makes calls fail with EmbeddingsUnavailable from
  // then on (the process is stopping).
  void Shutdown();
  // False while the circuit breaker holds calls off.
  bool available() const { return breaker_.closed(); }
  const EmbedderCounters& counters() const { return counters_; }

 private:
  struct Answer;

  // Embeds inputs [begin, end) of `inputs` into `out` with one request and its retries, or,
  // refused, by halves.
  void EmbedRange(const std::vector<std::string>& inputs, std::size_t begin, std::size_t end,
                  EmbeddedBatch& out);
  // The request of inputs [begin, end), built once for all its attempts.
  HttpRequest MakeRequest(const std::vector<std::string>& inputs, std::size_t begin,
                          std::size_t end) const;
  // One attempt of `request`, which carries `count` inputs.
  Answer Send(const HttpRequest& request, std::size_t count);
  // A connection of the pool, waiting while `concurrency` are in use; EmbeddingsUnavailable once
  // shut down.
  std::unique_ptr<HttpConnection> TakeConnection();
  // Gives a connection back, or nullptr for one that broke (and was destroyed).
  void ReturnConnection(std::unique_ptr<HttpConnection> connection);
  std::chrono::milliseconds Backoff(int failed_attempts);
  void SleepUnlessShutDown(std::chrono::milliseconds how_long);

  const EmbeddingsConfig config_;
  const EmbeddingsUrl url_;
  const SecretPieces key_pieces_;  // of the API key, for the provider's messages
  const Wait wait_;
  std::shared_ptr<boost::asio::ssl::context> tls_;  // for https:// only
  CircuitBreaker breaker_;
  EmbedderCounters counters_;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::unique_ptr<HttpConnection>> idle_;
  int in_use_ = 0;
  bool shut_down_ = false;
};

}  // namespace docgate
