#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace docgate {

// How docgate reaches an embeddings provider: any server speaking the OpenAI-style API
// (`POST {url}/embeddings`): vLLM, Ollama, text-embeddings-inference, Xinference, LocalAI and the
// hosted providers.
struct EmbeddingsConfig {
  // DOCGATE_EMBEDDINGS_URL: the API's base, http:// or https:// (e.g. http://127.0.0.1:8000/v1);
  // empty: no embeddings, keyword search only.
  std::string url;
  std::string model;    // DOCGATE_EMBEDDINGS_MODEL: required with a URL
  std::string api_key;  // DOCGATE_EMBEDDINGS_API_KEY: sent as a bearer token; never logged
  // DOCGATE_EMBEDDINGS_DIMENSIONS: the model's vector size, required with a URL; an answer of any
  // other size is refused.
  int dimensions = 0;
  int batch = 32;       // DOCGATE_EMBEDDINGS_BATCH: inputs per request
  int concurrency = 2;  // DOCGATE_EMBEDDINGS_CONCURRENCY: requests in flight at most (as
                        // many embedding workers, runtime/consumer_pipeline.h)
  // DOCGATE_EMBEDDINGS_CA_FILE: PEM certificates that https:// servers are verified against;
  // empty: the system's trust store. The certificate must name the URL's host.
  std::string ca_file;
  // DOCGATE_EMBEDDINGS_CONNECT_TIMEOUT_MS: TCP connect and TLS handshake.
  std::chrono::milliseconds connect_timeout{5000};
  // DOCGATE_EMBEDDINGS_TIMEOUT_MS: one request, from sending it to the end of the answer.
  std::chrono::milliseconds request_timeout{60000};
  // DOCGATE_EMBEDDINGS_MAX_ATTEMPTS: tries of one request (429, 5xx, timeouts, bad answers) before
  // the call fails, waiting `Retry-After` when the provider says, else an exponential backoff from
  // retry_initial, both at most DOCGATE_EMBEDDINGS_RETRY_MAX_MS.
  int max_attempts = 4;
  std::chrono::milliseconds retry_initial{200};
  std::chrono::milliseconds retry_max{30000};
  // After a call failed its attempts, calls fail at once for breaker_initial, doubling after each
  // failed probe up to DOCGATE_EMBEDDINGS_BREAKER_MAX_MS.
  std::chrono::milliseconds breaker_initial{1000};
  std::chrono::milliseconds breaker_max{60000};
  // DOCGATE_EMBEDDINGS_QUERY_TIMEOUT_MS: the longest a search by meaning waits for its query's
  // vector before it answers by keywords (app/deadline_embedder.h); also the bound of the query's
  // one request.
  std::chrono::milliseconds query_timeout{2000};
  // DOCGATE_EMBEDDINGS_QUERY_CONCURRENCY: queries with the provider at once, per instance; a
  // search finding them all busy answers by keywords at once.
  int query_concurrency = 4;
};

// Why `config` cannot be used, in one line naming the DOCGATE_EMBEDDINGS_* variable (never
// echoing the API key or the URL's credentials), or nullopt when it can: no URL at all, or a URL
// ParseEmbeddingsUrl accepts with a model, dimensions 1..65536, a batch of 1..2048, a concurrency
// and a query concurrency of 1..64, 1..100 attempts, positive timeouts and intervals, breaker_max
// at least
// breaker_initial. Connects to nothing.
std::optional<std::string> ValidateEmbeddingsConfig(const EmbeddingsConfig& config);

}  // namespace docgate
