// Invariant: the parsers of path ids and query strings (adapters/http/dto.h, router.h) accept
// exactly the canonical spellings and read them back as written:
// - ParsePositiveId(s) accepts s exactly when it is a positive int64 in canonical decimal, and
//   then std::to_string(id) == s; ParseVersionTag(s) likewise for "\"<positive int32>\"", and
//   then VersionTag(v) == s.
// - CheckPath(p) is OK exactly when p's %XX escapes are well formed and decode to valid UTF-8
//   without U+0000; ParseQuery answers a map of such text or VALIDATION, never throws, and the
//   map written back as a query string parses to the same map.
// - TargetPath(t) and TargetQuery(t) split t at its first '?' and lose nothing.
// - Router::Find matches a path to a route whose template, its {params} filled in with the
//   values found, spells the path again.
// The input's first byte picks the function; the rest is its argument.

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/http/dto.h"
#include "adapters/http/router.h"
#include "core/utf8.h"
#include "fuzz_support.h"

namespace {

using docgate::fuzz::AsText;
using docgate::fuzz::ByteReader;

// A canonical decimal within [1, max]: no sign, no leading zero.
bool IsCanonicalPositive(std::string_view text, std::int64_t max) {
  if (text.empty() || text.front() < '1' || text.front() > '9') return false;
  if (text.find_first_not_of("0123456789") != std::string_view::npos) return false;
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc{} && end == text.data() + text.size() && value <= max;
}

int Hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The query decoding of `text` ('+' is a space), written for this check; nullopt for a '%' that
// is not followed by two hex digits.
std::optional<std::string> Decode(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%') {
      if (i + 2 >= text.size() || Hex(text[i + 1]) < 0 || Hex(text[i + 2]) < 0) {
        return std::nullopt;
      }
      out += static_cast<char>(Hex(text[i + 1]) * 16 + Hex(text[i + 2]));
      i += 2;
    } else {
      out += text[i] == '+' ? ' ' : text[i];
    }
  }
  return out;
}

std::string Encode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z') ||
        (byte >= '0' && byte <= '9') || c == '-' || c == '.' || c == '_' || c == '~') {
      out += c;
    } else {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0x0F];
    }
  }
  return out;
}

void CheckPositiveId(std::string_view text) {
  const auto id = docgate::ParsePositiveId(text);
  FUZZ_CHECK(id.has_value() == IsCanonicalPositive(text, std::numeric_limits<std::int64_t>::max()));
  if (id) FUZZ_CHECK(*id > 0 && std::to_string(*id) == text);
}

void CheckVersionTag(std::string_view text) {
  const auto version = docgate::ParseVersionTag(text);
  const bool quoted = text.size() >= 2 && text.front() == '"' && text.back() == '"';
  FUZZ_CHECK(version.has_value() ==
             (quoted && IsCanonicalPositive(text.substr(1, text.size() - 2),
                                            std::numeric_limits<std::int32_t>::max())));
  if (version) FUZZ_CHECK(*version > 0 && docgate::VersionTag(*version) == text);
}

void CheckPath(std::string_view path) {
  const auto checked = docgate::CheckPath(path);
  // A path is decoded like a query value, '+' included: both become text the stores keep.
  const auto decoded = Decode(path);
  FUZZ_CHECK(checked.ok() == (decoded && docgate::IsStorableText(*decoded)));
  if (!checked) FUZZ_CHECK(checked.error().code == docgate::ErrorCode::kValidation);
}

void CheckQuery(std::string_view query) {
  const std::vector<std::string_view> allowed = {"q", "limit", "after", "status", "author_id"};
  const auto params = docgate::ParseQuery(query, allowed);
  if (!params) {
    FUZZ_CHECK(params.error().code == docgate::ErrorCode::kValidation);
    return;
  }
  std::string again;
  for (const auto& [name, value] : *params) {
    FUZZ_CHECK(std::find(allowed.begin(), allowed.end(), name) != allowed.end());
    FUZZ_CHECK(docgate::IsStorableText(value));
    if (!again.empty()) again += '&';
    again += Encode(name) + "=" + Encode(value);
  }
  const auto reparsed = docgate::ParseQuery(again, allowed);
  FUZZ_CHECK(reparsed.ok() && *reparsed == *params, again);
}

void CheckTarget(std::string_view target) {
  const auto path = docgate::TargetPath(target);
  const auto query = docgate::TargetQuery(target);
  FUZZ_CHECK(path.find('?') == std::string_view::npos);
  const bool has_query = target.find('?') != std::string_view::npos;
  FUZZ_CHECK(std::string(path) + (has_query ? "?" : "") + std::string(query) == target);
}

void CheckRouter(std::string_view path) {
  static const docgate::Router router = [] {
    docgate::Router r;
    for (const char* pattern :
         {"/healthz", "/api/v1/documents", "/api/v1/documents/{id}",
          "/api/v1/documents/{id}/submit", "/api/v1/reviews/{id}/approve", "/{a}/{b}/x"}) {
      r.Add(docgate::HttpVerb::get, pattern, {});
      r.Add(docgate::HttpVerb::post, pattern, {});
    }
    return r;
  }();
  const auto match = router.Find(docgate::HttpVerb::get, path);
  if (match.kind != docgate::Router::Match::Kind::kFound) return;
  // The template with every {name} replaced by its value is the path again.
  std::string spelled;
  std::string_view pattern = match.pattern;
  while (!pattern.empty()) {
    const auto open = pattern.find('{');
    if (open == std::string_view::npos) {
      spelled += pattern;
      break;
    }
    const auto close = pattern.find('}', open);
    spelled += pattern.substr(0, open);
    const auto value = match.params.Get(pattern.substr(open + 1, close - open - 1));
    FUZZ_CHECK(!value.empty() && value.find('/') == std::string_view::npos);
    spelled += value;
    pattern.remove_prefix(close + 1);
  }
  FUZZ_CHECK(spelled == path, spelled);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ByteReader input(AsText(data, size));
  const std::uint8_t selector = input.Byte();
  const std::string_view text = input.Rest();
  switch (selector % 6) {
    case 0:
      CheckPositiveId(text);
      break;
    case 1:
      CheckVersionTag(text);
      break;
    case 2:
      CheckPath(text);
      break;
    case 3:
      CheckQuery(text);
      break;
    case 4:
      CheckTarget(text);
      break;
    default:
      CheckRouter(text);
      break;
  }
  return 0;
}
