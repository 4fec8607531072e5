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

}  // namespace docgate
