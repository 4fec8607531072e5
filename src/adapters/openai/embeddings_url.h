#pragma once

#include <string>
#include <string_view>

#include "adapters/web/web_url.h"

namespace docgate {

// Where an OpenAI-style API lives, from its base URL (see ParseWebUrl).
using EmbeddingsUrl = WebUrl;

inline EmbeddingsUrl ParseEmbeddingsUrl(std::string_view url) {
  return ParseWebUrl(url, "DOCGATE_EMBEDDINGS_API_KEY");
}

// The request target of the embeddings endpoint: the base path + "/embeddings".
inline std::string EmbeddingsTarget(const EmbeddingsUrl& url) { return url.path + "/embeddings"; }

}  // namespace docgate
