#pragma once

#include "app/ports/digest.h"

namespace docgate {

// Digest by OpenSSL's EVP_Digest. Thread-safe.
class OpenSslDigest final : public Digest {
 public:
  std::string Sha256Hex(std::string_view bytes) const override;
};

}  // namespace docgate
