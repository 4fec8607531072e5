#include "core/vector_bytes.h"

#include <bit>
#include <cstdint>

namespace docgate {

std::string VectorToBytes(const std::vector<float>& vector) {
  std::string bytes;
  bytes.reserve(vector.size() * 4);
  for (const float value : vector) {
    const auto bits = std::bit_cast<std::uint32_t>(value);
    for (int shift = 0; shift < 32; shift += 8) {
      bytes.push_back(static_cast<char>((bits >> shift) & 0xFFu));
    }
  }
  return bytes;
}

std::optional<std::vector<float>> VectorFromBytes(std::string_view bytes, int dimensions) {
  if (dimensions < 0 || bytes.size() != static_cast<std::size_t>(dimensions) * 4) {
    return std::nullopt;
  }
  std::vector<float> vector;
  vector.reserve(static_cast<std::size_t>(dimensions));
  for (std::size_t at = 0; at < bytes.size(); at += 4) {
    std::uint32_t bits = 0;
    for (std::size_t i = 0; i < 4; ++i) {
      bits |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
    }
    vector.push_back(std::bit_cast<float>(bits));
  }
  return vector;
}

}  // namespace docgate
