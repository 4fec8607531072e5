#include "adapters/crypto/openssl_digest.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>
#include <stdexcept>

#include "core/hex.h"

namespace docgate {

std::string OpenSslDigest::Sha256(std::string_view bytes) const {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &length, EVP_sha256(), nullptr) != 1) {
    // Only an OpenSSL without SHA-256 (a broken installation) fails here.
    throw std::runtime_error("OpenSSL EVP_Digest(SHA-256) failed");
  }
  return std::string(reinterpret_cast<const char*>(digest.data()), length);
}

std::string OpenSslDigest::HmacSha256(std::string_view key, std::string_view data) const {
  std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(data.data()), data.size(), mac.data(),
           &length) == nullptr) {
    throw std::runtime_error("OpenSSL HMAC(SHA-256) failed");
  }
  return std::string(reinterpret_cast<const char*>(mac.data()), length);
}

bool OpenSslDigest::SameSecret(std::string_view a, std::string_view b) const {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string OpenSslDigest::Sha256Hex(std::string_view bytes) const {
  const std::string digest = Sha256(bytes);
  return LowerHex(std::span(reinterpret_cast<const unsigned char*>(digest.data()), digest.size()));
}

}  // namespace docgate
