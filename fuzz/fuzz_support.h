#pragma once

// What the fuzz targets share: the check that turns a broken invariant into a crash libFuzzer
// reports, the cutting of an input into its parts (and the configuration bytes some targets take
// from its front), and the helpers of the "never echoes the password" checks of the URL targets.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/percent_encoding.h"

namespace docgate::fuzz {

// Prints which invariant broke and where, then traps: libFuzzer saves the input as a crash.
[[noreturn]] inline void Violated(const char* what, const char* file, int line,
                                  std::string_view detail = {}) {
  std::fprintf(stderr, "%s:%d: invariant violated: %s\n", file, line, what);
  if (!detail.empty()) {
    std::fprintf(stderr, "  %.*s\n", static_cast<int>(detail.size()), detail.data());
  }
  __builtin_trap();
}

// FUZZ_CHECK(condition) or FUZZ_CHECK(condition, detail): detail (a string) says what was seen.
#define FUZZ_CHECK(condition, ...)                                                          \
  do {                                                                                      \
    if (!(condition)) {                                                                     \
      ::docgate::fuzz::Violated(#condition, __FILE__, __LINE__ __VA_OPT__(, ) __VA_ARGS__); \
    }                                                                                       \
  } while (false)

inline std::string_view AsText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// `text` cut at every `separator`: n separators make n + 1 parts, empty ones included.
inline std::vector<std::string_view> Split(std::string_view text, std::string_view separator) {
  std::vector<std::string_view> parts;
  for (auto at = text.find(separator); at != std::string_view::npos; at = text.find(separator)) {
    parts.push_back(text.substr(0, at));
    text.remove_prefix(at + separator.size());
  }
  parts.push_back(text);
  return parts;
}

// `text` before its first `separator`, and after it (nullopt when there is none).
struct Halves {
  std::string_view before;
  std::optional<std::string_view> after;
};
inline Halves SplitOnce(std::string_view text, std::string_view separator) {
  const auto at = text.find(separator);
  if (at == std::string_view::npos) return {text, std::nullopt};
  return {text.substr(0, at), text.substr(at + separator.size())};
}

// Takes bytes off the front of an input; a byte past the end reads as 0.
class ByteReader {
 public:
  explicit ByteReader(std::string_view input) : rest_(input) {}
  std::uint8_t Byte() {
    if (rest_.empty()) return 0;
    const auto byte = static_cast<std::uint8_t>(rest_.front());
    rest_.remove_prefix(1);
    return byte;
  }
  std::uint16_t Word() { return static_cast<std::uint16_t>(Byte() | (Byte() << 8)); }
  std::string_view Rest() const { return rest_; }

 private:
  std::string_view rest_;
};

// Where the password of a URL written by the rules is: scheme "://" user ":" password "@" ...,
// whose userinfo holds only what RFC 3986 allows there (unreserved characters, %XX escapes,
// sub-delims and ':'), and whose password is not empty. Every URL parser agrees on where such a
// password is, so none of them has a reason to echo it. nullopt for any other URL.
struct Span {
  std::size_t begin = 0;
  std::size_t end = 0;
};
inline std::optional<Span> WellFormedPassword(std::string_view url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return std::nullopt;
  const std::size_t userinfo = scheme_end + 3;
  const auto at = url.find('@', userinfo);
  if (at == std::string_view::npos) return std::nullopt;
  constexpr std::string_view kAllowed =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~%!$&'()*+,;=:";
  if (url.substr(userinfo, at - userinfo).find_first_not_of(kAllowed) != std::string_view::npos) {
    return std::nullopt;
  }
  const auto colon = url.find(':', userinfo);
  if (colon > at || colon + 1 == at) return std::nullopt;
  return Span{colon + 1, at};
}

// `text` with every letter replaced by another letter of the same case and kind (a hex digit
// stays a hex digit), everything else kept: a password that a parser must treat exactly as the
// original (same escapes, same structure), so that any difference in what the parser says about
// the two is text it echoed from the password.
inline std::string OtherLetters(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'a' && c <= 'f') {
      c = c == 'f' ? 'a' : static_cast<char>(c + 1);
    } else if (c >= 'A' && c <= 'F') {
      c = c == 'F' ? 'A' : static_cast<char>(c + 1);
    } else if (c >= 'g' && c <= 'z') {
      c = c == 'z' ? 'g' : static_cast<char>(c + 1);
    } else if (c >= 'G' && c <= 'Z') {
      c = c == 'Z' ? 'G' : static_cast<char>(c + 1);
    }
  }
  return out;
}

// `url` with the password at `password` written with OtherLetters.
inline std::string WithOtherPassword(std::string_view url, Span password) {
  std::string out(url.substr(0, password.begin));
  out += OtherLetters(url.substr(password.begin, password.end - password.begin));
  out += url.substr(password.end);
  return out;
}

// A WellFormedPassword of at least 8 bytes that, as written or percent-decoded, and so too with
// OtherLetters, occurs nowhere else in `url`, as written or decoded: for parsers that redact, an
// occurrence of it in what they say can only be an echo of the password (not of the host or a
// decoded query value, nor of a short password that happens to spell part of a fixed message), so
// that what they say about the URL and about the URL WithOtherPassword must be the same. nullopt
// for any other URL.
inline std::optional<Span> DistinctivePassword(std::string_view url) {
  const auto span = WellFormedPassword(url);
  if (!span || span->end - span->begin < 8) return std::nullopt;
  const std::string_view password = url.substr(span->begin, span->end - span->begin);
  const std::string other = OtherLetters(password);
  const std::string elsewhere =
      std::string(url.substr(0, span->begin)) + '\n' + std::string(url.substr(span->end));
  const std::string decoded_elsewhere = PercentDecoded(elsewhere);
  for (const std::string& secret :
       {std::string(password), PercentDecoded(password), other, PercentDecoded(other)}) {
    if (secret.empty() || elsewhere.find(secret) != std::string::npos ||
        decoded_elsewhere.find(secret) != std::string::npos) {
      return std::nullopt;
    }
  }
  return span;
}

// `text` with both passwords of a differential check - that of `url` at `span` and its
// OtherLetters - replaced by "***", as written and percent-decoded: what a redacting parser says
// about the two URLs is the same once each has lost the password it may have hidden and the other
// one it may have spelled by chance (a fixed message quoting "mongodb+srv://" hides a password
// "mongodb+sr" of one URL and shows it for the other).
inline std::string WithoutEitherPassword(std::string text, std::string_view url, Span span) {
  const std::string password(url.substr(span.begin, span.end - span.begin));
  const std::string other = OtherLetters(password);
  for (const std::string& secret :
       {password, other, PercentDecoded(password), PercentDecoded(other)}) {
    if (secret.empty()) continue;
    for (auto at = text.find(secret); at != std::string::npos; at = text.find(secret, at + 3)) {
      text.replace(at, secret.size(), "***");
    }
  }
  return text;
}

// Checks that `redact` (text -> text) leaves none of the password of `url` at `password` in a
// text: `marked`, in which "$P" stands for the password as written and "$D" for it decoded. A
// password that "***" spells (one holding '*') cannot be checked so.
template <typename Redact>
void CheckRedacts(std::string_view marked, std::string_view url, Span password, Redact&& redact) {
  const std::string written(url.substr(password.begin, password.end - password.begin));
  const std::string decoded = PercentDecoded(written);
  std::string text;
  for (std::size_t i = 0; i < marked.size(); ++i) {
    if (marked[i] == '$' && i + 1 < marked.size() &&
        (marked[i + 1] == 'P' || marked[i + 1] == 'D')) {
      text += marked[++i] == 'P' ? written : decoded;
    } else {
      text += marked[i];
    }
  }
  const std::string redacted = redact(text);
  for (const std::string& secret : {written, decoded}) {
    if (secret.empty() || secret.find('*') != std::string::npos) continue;
    FUZZ_CHECK(redacted.find(secret) == std::string::npos, redacted);
  }
}

// Every byte of `text` as %XX: a URL part that any parser decodes back to `text`.
inline std::string PercentEncodedBytes(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    out += '%';
    out += kHex[byte >> 4];
    out += kHex[byte & 0x0F];
  }
  return out;
}

// The message of the exception of type E that `parse` throws, or nullopt when it returns. Any
// other exception escapes, and libFuzzer reports it as a crash.
template <typename E, typename Parse>
std::optional<std::string> ErrorOf(Parse&& parse) {
  try {
    parse();
  } catch (const E& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

}  // namespace docgate::fuzz
