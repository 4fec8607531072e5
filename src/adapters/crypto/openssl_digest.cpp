#include "adapters/crypto/openssl_digest.h"

#include <openssl/evp.h>

#include <array>
#include <stdexcept>

#include "adapters/crypto/hex.h"

namespace docgate {

std::string OpenSslDigest::Sha256Hex(std::string_view bytes) const {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &length, EVP_sha256(), nullptr) != 1) {
    // Only an OpenSSL without SHA-256 (a broken installation) fails here.
    throw std::runtime_error("OpenSSL EVP_Digest(SHA-256) failed");
  }
  return LowerHex(std::span(digest.data(), length));
}

}  // namespace docgate
