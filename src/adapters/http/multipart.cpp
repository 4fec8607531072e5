#include "adapters/http/multipart.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "core/percent_encoding.h"

namespace docgate {

namespace {

Error Malformed(std::string detail) {
  return MakeError(ErrorCode::kValidation, "malformed multipart/form-data: " + std::move(detail));
}

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view Trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// The parameters after a header value's first ';': name (lower case) -> value, unquoted.
std::vector<std::pair<std::string, std::string>> Parameters(std::string_view value) {
  std::vector<std::pair<std::string, std::string>> parameters;
  std::size_t at = value.find(';');
  while (at != std::string_view::npos && at < value.size()) {
    ++at;
    const std::size_t equals = value.find('=', at);
    if (equals == std::string_view::npos) break;
    std::string name(Trimmed(value.substr(at, equals - at)));
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::size_t cursor = equals + 1;
    while (cursor < value.size() && value[cursor] == ' ') ++cursor;
    std::string text;
    if (cursor < value.size() && value[cursor] == '"') {
      for (++cursor; cursor < value.size() && value[cursor] != '"'; ++cursor) {
        if (value[cursor] == '\\' && cursor + 1 < value.size()) ++cursor;
        text += value[cursor];
      }
      at = value.find(';', cursor);
    } else {
      const std::size_t end = value.find(';', cursor);
      text = std::string(Trimmed(value.substr(cursor, end - cursor)));
      at = end;
    }
    parameters.emplace_back(std::move(name), std::move(text));
  }
  return parameters;
}

std::optional<std::string> Parameter(std::string_view value, std::string_view name) {
  for (auto& [key, text] : Parameters(value)) {
    if (key == name) return text;
  }
  return std::nullopt;
}

// RFC 5987's ext-value: charset'language'percent-encoded, UTF-8 only.
std::optional<std::string> ExtendedValue(std::string_view value) {
  const std::size_t first = value.find('\'');
  const std::size_t second = first == std::string_view::npos ? first : value.find('\'', first + 1);
  if (second == std::string_view::npos || !EqualsIgnoringCase(value.substr(0, first), "utf-8")) {
    return std::nullopt;
  }
  return PercentDecoded(value.substr(second + 1));
}

Result<FormPart> ReadPart(std::string_view headers, std::string_view body) {
  FormPart part;
  part.body = body;
  bool disposition = false;
  while (!headers.empty()) {
    const std::size_t end = headers.find("\r\n");
    const std::string_view line = headers.substr(0, end);
    headers = end == std::string_view::npos ? std::string_view{} : headers.substr(end + 2);
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return Malformed("a part header has no ':'");
    const std::string_view name = Trimmed(line.substr(0, colon));
    const std::string_view value = Trimmed(line.substr(colon + 1));
    if (EqualsIgnoringCase(name, "Content-Type")) {
      part.content_type = std::string(value);
    } else if (EqualsIgnoringCase(name, "Content-Disposition")) {
      const std::string_view kind = Trimmed(value.substr(0, value.find(';')));
      if (!EqualsIgnoringCase(kind, "form-data")) {
        return Malformed("a part's Content-Disposition is not form-data");
      }
      disposition = true;
      part.name = Parameter(value, "name").value_or("");
      if (const auto extended = Parameter(value, "filename*")) {
        const auto decoded = ExtendedValue(*extended);
        if (!decoded) return Malformed("a part's filename* is not UTF-8''percent-encoded");
        part.filename = *decoded;
        part.has_filename = true;
      } else if (auto filename = Parameter(value, "filename")) {
        part.filename = std::move(*filename);
        part.has_filename = true;
      }
    }
  }
  if (!disposition || part.name.empty()) {
    return Malformed("a part has no Content-Disposition: form-data with a name");
  }
  return part;
}

}  // namespace

Result<std::vector<FormPart>> ParseMultipartForm(std::string_view content_type,
                                                 std::string_view body) {
  const std::string_view type = Trimmed(content_type.substr(0, content_type.find(';')));
  if (!EqualsIgnoringCase(type, "multipart/form-data")) {
    return MakeError(ErrorCode::kValidation, "Content-Type must be multipart/form-data, got '" +
                                                 std::string(type.substr(0, 100)) + "'");
  }
  const auto boundary = Parameter(content_type, "boundary");
  if (!boundary || boundary->empty() || boundary->size() > 70) {
    return MakeError(ErrorCode::kValidation,
                     "Content-Type multipart/form-data needs a boundary of 1..70 characters");
  }
  const std::string delimiter = "--" + *boundary;
  // The first delimiter opens the body, or a line of its own after a preamble.
  std::size_t at = body.starts_with(delimiter) ? 0 : body.find("\r\n" + delimiter);
  if (at == std::string_view::npos) return Malformed("the boundary does not occur in the body");
  if (at != 0) at += 2;
  std::vector<FormPart> parts;
  const std::string next_delimiter = "\r\n" + delimiter;
  for (;;) {
    at += delimiter.size();
    if (body.substr(at, 2) == "--") return parts;  // the closing delimiter
    // Blank space may follow a delimiter before its line ends (RFC 2046).
    while (at < body.size() && (body[at] == ' ' || body[at] == '\t')) ++at;
    if (body.substr(at, 2) != "\r\n") return Malformed("a delimiter is not followed by CRLF");
    at += 2;
    if (parts.size() == kMaxFormParts) {
      return Malformed("more than " + std::to_string(kMaxFormParts) + " parts");
    }
    const std::size_t headers_end = body.find("\r\n\r\n", at);
    const bool no_headers = body.substr(at, 2) == "\r\n";
    if (!no_headers &&
        (headers_end == std::string_view::npos || headers_end - at > kMaxPartHeaderBytes)) {
      return Malformed("a part's headers do not end within " + std::to_string(kMaxPartHeaderBytes) +
                       " bytes");
    }
    const std::string_view headers =
        no_headers ? std::string_view{} : body.substr(at, headers_end - at);
    const std::size_t content = no_headers ? at + 2 : headers_end + 4;
    const std::size_t end = body.find(next_delimiter, content);
    if (end == std::string_view::npos) return Malformed("the body has no closing delimiter");
    auto part = ReadPart(headers, body.substr(content, end - content));
    if (!part) return part.error();
    parts.push_back(std::move(*part));
    at = end + 2;
  }
}

}  // namespace docgate
