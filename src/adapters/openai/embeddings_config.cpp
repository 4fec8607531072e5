#include "adapters/openai/embeddings_config.h"

#include <stdexcept>

#include "adapters/openai/embeddings_url.h"
#include "core/config_check.h"

namespace docgate {

std::optional<std::string> ValidateEmbeddingsConfig(const EmbeddingsConfig& config) {
  if (config.url.empty()) return std::nullopt;
  EmbeddingsUrl url;
  try {
    url = ParseEmbeddingsUrl(config.url);
  } catch (const std::invalid_argument& e) {
    return std::string(
               "DOCGATE_EMBEDDINGS_URL must be http://host[:port][/path] or https://...: ") +
           e.what();
  }
  return ConfigCheck()
      .Require(url.tls || config.api_key.empty() || IsLoopbackHost(url.host),
               "DOCGATE_EMBEDDINGS_URL is http:// to " + url.host +
                   ", which would send DOCGATE_EMBEDDINGS_API_KEY in clear: use https://, or "
                   "http:// only to this machine (localhost, 127.0.0.1, ::1)")
      .Require(!config.model.empty(),
               "DOCGATE_EMBEDDINGS_MODEL is required with DOCGATE_EMBEDDINGS_URL: the model's "
               "name as the server knows it (e.g. BAAI/bge-m3)")
      .Require(config.dimensions != 0,
               "DOCGATE_EMBEDDINGS_DIMENSIONS is required with DOCGATE_EMBEDDINGS_URL: the size "
               "of the model's vectors (e.g. 1024 for BAAI/bge-m3)")
      .Range("DOCGATE_EMBEDDINGS_DIMENSIONS", config.dimensions, 1, 65536)
      .Range("DOCGATE_EMBEDDINGS_BATCH", config.batch, 1, 2048)
      .Range("DOCGATE_EMBEDDINGS_CONCURRENCY", config.concurrency, 1, 64)
      .Range("DOCGATE_EMBEDDINGS_MAX_ATTEMPTS", config.max_attempts, 1, 100)
      .Positive("DOCGATE_EMBEDDINGS_CONNECT_TIMEOUT_MS", config.connect_timeout)
      .Positive("DOCGATE_EMBEDDINGS_TIMEOUT_MS", config.request_timeout)
      .Positive("DOCGATE_EMBEDDINGS_QUERY_TIMEOUT_MS", config.query_timeout)
      .Range("DOCGATE_EMBEDDINGS_QUERY_CONCURRENCY", config.query_concurrency, 1, 64)
      .Positive("the embeddings' first retry interval", config.retry_initial)
      .Require(config.retry_max >= config.retry_initial,
               "DOCGATE_EMBEDDINGS_RETRY_MAX_MS must be at least " +
                   std::to_string(config.retry_initial.count()))
      .Positive("the embeddings breaker's initial interval", config.breaker_initial)
      .Require(config.breaker_max >= config.breaker_initial,
               "DOCGATE_EMBEDDINGS_BREAKER_MAX_MS must be at least " +
                   std::to_string(config.breaker_initial.count()))
      .Problem();
}

}  // namespace docgate
