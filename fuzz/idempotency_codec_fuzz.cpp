// Invariant: the stored form of an idempotent answer (adapters/http/idempotency_codec.h) gives the
// answer back byte for byte: Decode(Encode(r)) == r for every response Encode accepts (status,
// header fields but Content-Length and Transfer-Encoding, body), and Encode refuses only with an
// exception. DecodeResponse of any text either gives a response that encodes back to a fixed
// point or throws std::runtime_error, nothing else. IdempotencyKeyProblem accepts exactly 1..255
// printable ASCII characters, and RequestFingerprint is 64 lowercase hex digits that differ for
// requests that differ in method, target or body.
// The input's first byte picks the check; the rest is its argument, parts split at '\n'.

#include <boost/beast/http/field.hpp>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/http/idempotency_codec.h"
#include "fuzz_support.h"

namespace {

namespace http = boost::beast::http;
using docgate::HttpRequest;
using docgate::HttpResponse;
using docgate::fuzz::AsText;
using docgate::fuzz::ByteReader;

boost::beast::string_view Beast(std::string_view text) { return {text.data(), text.size()}; }

std::vector<std::string_view> Lines(std::string_view text) {
  return docgate::fuzz::Split(text, "\n");
}

// What Encode keeps of a response: status, fields in order (but the two the server sets), body.
struct Kept {
  unsigned status = 0;
  std::vector<std::pair<std::string, std::string>> fields;
  std::string body;
  bool operator==(const Kept&) const = default;
};

Kept KeptOf(const HttpResponse& response) {
  Kept kept{response.result_int(), {}, response.body()};
  for (const auto& field : response) {
    if (field.name() == http::field::content_length ||
        field.name() == http::field::transfer_encoding) {
      continue;
    }
    kept.fields.emplace_back(std::string(field.name_string()), std::string(field.value()));
  }
  return kept;
}

void CheckRoundTrip(std::uint16_t status, std::string_view text) {
  // Lines: "name: value" header fields until an empty line, then the body.
  HttpResponse response{static_cast<docgate::HttpStatus>(status), 11};
  const auto lines = Lines(text);
  std::size_t i = 0;
  for (; i < lines.size() && !lines[i].empty(); ++i) {
    const auto colon = lines[i].find(':');
    const auto name = lines[i].substr(0, colon);
    const auto value =
        colon == std::string_view::npos ? std::string_view{} : lines[i].substr(colon + 1);
    if (name.empty()) continue;
    // As std::string, NUL-terminated like every name docgate inserts: Beast 1.74's iequals reads
    // one byte past the end of a name whose last character differs from its neighbour's in case
    // only.
    response.insert(std::string(name), std::string(value));
  }
  std::string body;
  for (++i; i < lines.size(); ++i) body.append(lines[i]).append(i + 1 < lines.size() ? "\n" : "");
  response.body() = body;

  std::string stored;
  try {
    stored = docgate::EncodeResponse(response);
  } catch (const std::exception&) {
    return;  // refused, as documented (a body that is not UTF-8, an oversized envelope)
  }
  FUZZ_CHECK(KeptOf(docgate::DecodeResponse(stored)) == KeptOf(response), stored);
}

void CheckDecode(std::string_view text) {
  HttpResponse decoded;
  try {
    decoded = docgate::DecodeResponse(std::string(text));
  } catch (const std::runtime_error&) {
    return;
  }
  std::string stored;
  try {
    stored = docgate::EncodeResponse(decoded);
  } catch (const std::exception&) {
    return;  // an answer Encode would not have written, so never stored
  }
  FUZZ_CHECK(KeptOf(docgate::DecodeResponse(stored)) == KeptOf(decoded), stored);
  FUZZ_CHECK(docgate::EncodeResponse(docgate::DecodeResponse(stored)) == stored, stored);
}

void CheckKey(std::string_view key) {
  bool printable = true;
  for (const char c : key) printable = printable && c >= 0x20 && c <= 0x7E;
  const bool valid = !key.empty() && key.size() <= 255 && printable;
  FUZZ_CHECK(docgate::IdempotencyKeyProblem(key).has_value() != valid);
}

void CheckFingerprint(std::string_view text) {
  // Two requests, "METHOD\nTARGET\nBODY" each, the second after a NUL byte. A real target holds
  // no control character and a method only token characters (the HTTP parser sees to that).
  const auto nul = text.find('\0');
  const auto first = Lines(text.substr(0, nul));
  const auto second =
      Lines(nul == std::string_view::npos ? std::string_view{} : text.substr(nul + 1));
  const auto request = [](const std::vector<std::string_view>& parts) {
    HttpRequest r;
    r.method_string(Beast(parts.size() > 0 && !parts[0].empty() ? parts[0] : "GET"));
    r.target(Beast(parts.size() > 1 ? parts[1] : "/"));
    std::string body;
    for (std::size_t i = 2; i < parts.size(); ++i) {
      body.append(parts[i]).append(i + 1 < parts.size() ? "\n" : "");
    }
    r.body() = body;
    return r;
  };
  const HttpRequest a = request(first);
  const HttpRequest b = request(second);
  const std::string fa = docgate::RequestFingerprint(a);
  FUZZ_CHECK(fa.size() == 64 && fa.find_first_not_of("0123456789abcdef") == std::string::npos);
  const bool same =
      a.method_string() == b.method_string() && a.target() == b.target() && a.body() == b.body();
  FUZZ_CHECK((fa == docgate::RequestFingerprint(b)) == same);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ByteReader input(AsText(data, size));
  const std::uint8_t selector = input.Byte();
  switch (selector % 4) {
    case 0: {
      const std::uint16_t status = 100 + input.Word() % 900;
      CheckRoundTrip(status, input.Rest());
      break;
    }
    case 1:
      CheckDecode(input.Rest());
      break;
    case 2:
      CheckKey(input.Rest());
      break;
    default:
      CheckFingerprint(input.Rest());
      break;
  }
  return 0;
}
