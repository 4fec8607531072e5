#pragma once

#include "app/ports/digest.h"

namespace docgate {

// Digest by OpenSSL: EVP_Digest, HMAC, CRYPTO_memcmp. Thread-safe.
class OpenSslDigest final : public Digest {
 public:
  std::string Sha256Hex(std::string_view bytes) const override;
  std::string Sha256(std::string_view bytes) const override;
  std::string HmacSha256(std::string_view key, std::string_view data) const override;
  bool SameSecret(std::string_view a, std::string_view b) const override;
};

}  // namespace docgate
