#include "core/utf8.h"

namespace docgate {
namespace {

// The C0 controls and DEL (one byte) and the C1 controls (U+0080..U+009F, 0xC2 0x80..0x9F), for a
// well-formed sequence of `length` bytes at s[at].
bool IsControl(std::string_view s, std::size_t at, std::size_t length) {
  const auto lead = static_cast<unsigned char>(s[at]);
  if (length == 1) return lead < 0x20 || lead == 0x7F;
  return length == 2 && lead == 0xC2 && static_cast<unsigned char>(s[at + 1]) < 0xA0;
}

}  // namespace

std::size_t Utf8SequenceLength(std::string_view s, std::size_t at) {
  const auto lead = static_cast<unsigned char>(s[at]);
  std::size_t extra = 0;
  char32_t cp = 0;
  if (lead < 0x80) {
    return 1;
  } else if ((lead & 0xE0) == 0xC0) {
    extra = 1;
    cp = lead & 0x1F;
  } else if ((lead & 0xF0) == 0xE0) {
    extra = 2;
    cp = lead & 0x0F;
  } else if ((lead & 0xF8) == 0xF0) {
    extra = 3;
    cp = lead & 0x07;
  } else {
    return 0;
  }
  for (std::size_t k = 1; k <= extra; ++k) {
    if (at + k >= s.size()) return 0;
    const auto next = static_cast<unsigned char>(s[at + k]);
    if ((next & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (next & 0x3F);
  }
  static constexpr char32_t kMinForLength[] = {0, 0x80, 0x800, 0x10000};
  if (cp < kMinForLength[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return extra + 1;
}

std::optional<std::size_t> Utf8Length(std::string_view text) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < text.size(); ++count) {
    const std::size_t length = Utf8SequenceLength(text, i);
    if (length == 0) return std::nullopt;
    i += length;
  }
  return count;
}

std::string_view Utf8Prefix(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  std::size_t end = max_bytes;
  for (int backed = 0;
       backed < 3 && end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80; ++backed) {
    --end;
  }
  return text.substr(0, end);
}

bool IsStorableText(std::string_view text) {
  return text.find('\0') == std::string_view::npos && Utf8Length(text).has_value();
}

bool IsPrintableText(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = Utf8SequenceLength(text, i);
    if (length == 0 || IsControl(text, i, length)) return false;
    i += length;
  }
  return true;
}

std::string EscapeForLog(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    std::size_t length = Utf8SequenceLength(text, i);
    if (length != 0 && !IsControl(text, i, length)) {
      if (text[i] == '\\') out += '\\';
      out.append(text, i, length);
    } else {
      length = length == 0 ? 1 : length;
      for (std::size_t k = i; k < i + length; ++k) {
        const auto byte = static_cast<unsigned char>(text[k]);
        out.append("\\x").append(1, kHex[byte >> 4]).append(1, kHex[byte & 0x0F]);
      }
    }
    i += length;
  }
  return out;
}

}  // namespace docgate
