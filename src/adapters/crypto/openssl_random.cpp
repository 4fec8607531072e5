#include "adapters/crypto/openssl_random.h"

#include <openssl/rand.h>

#include <array>
#include <stdexcept>

#include "core/hex.h"

namespace docgate {
namespace {

std::array<unsigned char, 16> Random16() {
  std::array<unsigned char, 16> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
    throw std::runtime_error("OpenSSL RAND_bytes failed");
  }
  return bytes;
}

}  // namespace

std::string OpenSslRandom::Token128() {
  const auto bytes = Random16();
  return LowerHex(bytes);
}

std::string OpenSslRandom::Uuid() {
  auto bytes = Random16();
  bytes[6] = static_cast<unsigned char>((bytes[6] & 0x0F) | 0x40);  // version 4
  bytes[8] = static_cast<unsigned char>((bytes[8] & 0x3F) | 0x80);  // RFC 4122 variant
  const std::string hex = LowerHex(bytes);
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
         hex.substr(16, 4) + "-" + hex.substr(20);
}

}  // namespace docgate
