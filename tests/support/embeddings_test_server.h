#pragma once

// A small embeddings server for tests and benchmarks (issue 17): it speaks the OpenAI-style API
// that docgate's OpenAiEmbedder talks to (`POST /v1/embeddings`, `{"model", "input"}` ->
// `{"data": [{"index", "embedding"}], "usage"}`), over HTTP or HTTPS, on 127.0.0.1 and a port of
// its own. No model runs here: a text's vector is its hashed character unigrams and bigrams
// (VectorOf), deterministic, and texts that share words are near each other.
//
// Switches make it misbehave the way providers do (FailNext, SetDelay, RefuseInputsLongerThan),
// and it counts every request and every input it embedded, so a test can assert that a text was
// sent exactly once.

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace docgate::testing {

struct EmbeddingsTestServerOptions {
  int dimensions = 64;
  std::string model = "docgate-test-embedder";  // other models are 404, like a real server
  std::string api_key;                          // when set, other bearer tokens are 401
  // With api_key: the 401's message quotes the key it was sent after this many bytes of text,
  // as some providers echo what they were given.
  std::optional<std::size_t> echo_key_after;
  // Both set: HTTPS only, with this PEM certificate and key.
  std::string cert_file;
  std::string key_file;
};

// How the next requests go wrong (FailNext).
enum class EmbeddingsFault {
  kTooManyRequests,  // 429, with Retry-After when one is given
  kInternalError,    // 500
  kUnavailable,      // 503, with Retry-After when one is given
  kWrongDimensions,  // 200 with one dimension too many
  kMalformedJson,    // 200 with a body that is not JSON
  kNaN,              // 200 with a NaN in the first vector (written as the bare token NaN)
  kZeros,            // 200 whose first vector is all zeros
  kMissingVector,    // 200 with one vector fewer than inputs
  kNoAnswer,         // the connection is closed without an answer
};

class EmbeddingsTestServer {
 public:
  // Listens at once; throws std::runtime_error when it cannot.
  explicit EmbeddingsTestServer(EmbeddingsTestServerOptions options = {});
  ~EmbeddingsTestServer();
  EmbeddingsTestServer(const EmbeddingsTestServer&) = delete;
  EmbeddingsTestServer& operator=(const EmbeddingsTestServer&) = delete;

  std::uint16_t port() const;
  // The base URL docgate is given: http://127.0.0.1:PORT/v1 (https:// with TLS).
  std::string url() const;
  const EmbeddingsTestServerOptions& options() const;

  // The next `requests` requests are answered with `fault` (each fault in order when called
  // again before they are used up).
  void FailNext(int requests, EmbeddingsFault fault,
                std::optional<int> retry_after_seconds = std::nullopt);
  // Every answer comes this late.
  void SetDelay(std::chrono::milliseconds delay);
  // Requests from now on get no answer until Release (a provider that hangs); held() counts the
  // requests waiting so.
  void Hold();
  void Release();
  int held() const;
  // A request holding an input longer than `bytes` is answered 400, as servers refuse inputs
  // beyond the model's context.
  void RefuseInputsLongerThan(std::size_t bytes);

  std::uint64_t connections() const;  // accepted so far
  std::uint64_t requests() const;
  // Inputs answered with a well-formed vector, over all requests.
  std::uint64_t inputs_embedded() const;
  // Each text answered with a well-formed vector, and how many times.
  std::map<std::string, int> embedded_texts() const;
  // The number of inputs of each request, in order of arrival.
  std::vector<std::size_t> batch_sizes() const;
  // The most requests it was answering at once.
  int max_in_flight() const;

  // The vector the server answers for `text`: counts of hashed code-point unigrams and bigrams of
  // the lower-cased text, not normalised.
  static std::vector<float> VectorOf(std::string_view text, int dimensions);

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace docgate::testing
