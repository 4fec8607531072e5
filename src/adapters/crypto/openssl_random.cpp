#include "adapters/crypto/openssl_random.h"

#include <openssl/rand.h>

#include <array>
#include <stdexcept>

namespace docgate {
namespace {

std::array<unsigned char, 16> Random16() {
  std::array<unsigned char, 16> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
    throw std::runtime_error("OpenSSL RAND_bytes failed");
  }
  return bytes;
}

std::string Hex(const std::array<unsigned char, 16>& bytes, bool uuid_dashes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (uuid_dashes && (i == 4 || i == 6 || i == 8 || i == 10)) out.push_back('-');
    out.push_back(kDigits[bytes[i] >> 4]);
    out.push_back(kDigits[bytes[i] & 0x0F]);
  }
  return out;
}

}  // namespace

std::string OpenSslRandom::Token128() { return Hex(Random16(), false); }

std::string OpenSslRandom::Uuid() {
  auto bytes = Random16();
  bytes[6] = static_cast<unsigned char>((bytes[6] & 0x0F) | 0x40);  // version 4
  bytes[8] = static_cast<unsigned char>((bytes[8] & 0x3F) | 0x80);  // RFC 4122 variant
  return Hex(bytes, true);
}

}  // namespace docgate
