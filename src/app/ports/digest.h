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
  // The SHA-256 of `bytes`, the 32 bytes themselves.
  virtual std::string Sha256(std::string_view bytes) const = 0;
  // HMAC-SHA-256 of `data` under `key`, the 32 bytes themselves.
  virtual std::string HmacSha256(std::string_view key, std::string_view data) const = 0;
  // Whether `a` and `b` are equal, in a time that depends on their lengths only: a secret a
  // client presents, compared with the one it must match.
  virtual bool SameSecret(std::string_view a, std::string_view b) const = 0;
};

}  // namespace docgate
