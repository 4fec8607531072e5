#include "core/base64url.h"

#include <array>
#include <cstdint>

namespace docgate {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

constexpr std::array<std::int8_t, 256> MakeValues() {
  std::array<std::int8_t, 256> values{};
  values.fill(-1);
  for (std::size_t i = 0; i < kAlphabet.size(); ++i) {
    values[static_cast<unsigned char>(kAlphabet[i])] = static_cast<std::int8_t>(i);
  }
  return values;
}
constexpr std::array<std::int8_t, 256> kValues = MakeValues();

}  // namespace

std::optional<std::string> DecodeBase64Url(std::string_view text) {
  if (text.size() % 4 == 1) return std::nullopt;
  std::string bytes;
  bytes.reserve(text.size() / 4 * 3 + 2);
  std::uint32_t bits = 0;
  int held = 0;
  for (const char c : text) {
    const std::int8_t value = kValues[static_cast<unsigned char>(c)];
    if (value < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<std::uint32_t>(value);
    held += 6;
    if (held >= 8) {
      held -= 8;
      bytes.push_back(static_cast<char>((bits >> held) & 0xff));
    }
  }
  if ((bits & ((1u << held) - 1)) != 0) return std::nullopt;
  return bytes;
}

namespace {

std::string Encode(std::string_view bytes, std::string_view alphabet) {
  std::string text;
  text.reserve((bytes.size() + 2) / 3 * 4);
  std::uint32_t bits = 0;
  int held = 0;
  for (const char c : bytes) {
    bits = (bits << 8) | static_cast<unsigned char>(c);
    held += 8;
    while (held >= 6) {
      held -= 6;
      text.push_back(alphabet[(bits >> held) & 0x3f]);
    }
  }
  if (held > 0) text.push_back(alphabet[(bits << (6 - held)) & 0x3f]);
  return text;
}

}  // namespace

std::string EncodeBase64Url(std::string_view bytes) { return Encode(bytes, kAlphabet); }

std::string EncodeBase64(std::string_view bytes) {
  static constexpr std::string_view kStandard =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string text = Encode(bytes, kStandard);
  while (text.size() % 4 != 0) text.push_back('=');
  return text;
}

}  // namespace docgate
