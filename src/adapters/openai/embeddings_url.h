#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace docgate {

// Where an OpenAI-style API lives, from its base URL.
struct EmbeddingsUrl {
  bool tls = false;  // https://
  std::string host;  // a name or an address (IPv6 without its brackets)
  std::uint16_t port = 0;
  std::string path;  // the base path without a trailing '/' ("/v1", or "" for the root)

  // The request target of the embeddings endpoint: path + "/embeddings".
  std::string EmbeddingsTarget() const { return path + "/embeddings"; }
  // The Host header: host[:port], the port only when it is not the scheme's default.
  std::string HostHeader() const;
};

// Parses http://host[:port][/path] or https://... (port default 80 / 443; an IPv6 address in
// brackets). Throws std::invalid_argument, naming the problem but never echoing the URL, for any
// other scheme, user information (an API key belongs in DOCGATE_EMBEDDINGS_API_KEY), a query or
// fragment, an empty host or a port outside 1..65535.
EmbeddingsUrl ParseEmbeddingsUrl(std::string_view url);

}  // namespace docgate
