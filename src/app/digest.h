#pragma once

#include <string>
#include <string_view>

namespace docgate {

// Cryptographic digests, a port so that app/ includes no crypto library. Implementations are
// thread-safe and never throw for any input.
class Digest {
 public:
  virtual ~Digest() = default;
  // The SHA-256 of `bytes` as 64 lowercase hex characters.
  virtual std::string Sha256Hex(std::string_view bytes) const = 0;
};

// The key of a chunk's text for its embedding (ADR 0010): the SHA-256 of the text after Unicode
// NFC normalisation, so that the same words typed with composed or decomposed characters share one
// vector. Text that is not valid UTF-8 is hashed as it is.
std::string EmbeddingTextKey(const Digest& digest, std::string_view text);

}  // namespace docgate
