#pragma once

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace docgate {

// What an embeddings provider answered for a list of inputs, in the inputs' order.
struct EmbeddedBatch {
  // One per input: `dimensions` floats of unit length (so that cosine similarity is a dot
  // product), or empty when the provider refused that input for good (see `rejections`).
  std::vector<std::vector<float>> vectors;
  // One per input: why the provider refuses to embed it (it answered 400, 413 or 422 for that
  // input alone, say because it is too long), or empty when it was embedded. Sending it again
  // would be refused again.
  std::vector<std::string> rejections;
  std::int64_t tokens = 0;  // what the provider reported using (`usage`), 0 when it did not say
};

// The provider cannot embed now: unreachable, too slow, overloaded (429, 5xx) after the retries,
// refusing the credentials, answering something that is not what was asked (malformed JSON, the
// wrong number of vectors or dimensions, NaN, a vector of zeros), or held off by the circuit
// breaker after such failures. Nothing of the call is usable; the caller tries again later, no
// sooner than `retry_after`.
class EmbeddingsUnavailable : public std::runtime_error {
 public:
  EmbeddingsUnavailable(const std::string& what, std::chrono::milliseconds retry_after)
      : std::runtime_error(what), retry_after_(retry_after) {}
  std::chrono::milliseconds retry_after() const { return retry_after_; }

 private:
  std::chrono::milliseconds retry_after_;
};

// Turns texts into vectors with one model (issue 17). Implementations: OpenAiEmbedder (any server
// speaking the OpenAI-style /embeddings API); tests/fakes/fake_embedder.h.
//
// Thread-safe. Every call may block on the network for up to the implementation's timeouts and
// retries; throws EmbeddingsUnavailable as above and never returns a vector that is not finite,
// non-zero, normalised and of `dimensions()` floats.
class Embedder {
 public:
  virtual ~Embedder() = default;
  // The model's name as the provider knows it; with dimensions(), part of every embedding's key.
  virtual const std::string& model() const = 0;
  virtual int dimensions() const = 0;
  // The most inputs one request to the provider carries.
  virtual int max_batch() const = 0;
  // The vectors of `inputs`, sent max_batch() per request. An EmbeddingsUnavailable discards what
  // the call's earlier requests returned: a caller that must not compute anything twice passes at
  // most max_batch() inputs per call.
  virtual EmbeddedBatch Embed(const std::vector<std::string>& inputs) = 0;
};

}  // namespace docgate
