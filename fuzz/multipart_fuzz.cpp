// Invariant: ParseMultipartForm (adapters/http/multipart.h) never throws or reads out of bounds,
// on any content type and body; every part it returns is a view into the body, at most
// kMaxFormParts of them, each with a name. And a form written from parts (the input cut into a
// name, a filename and a body that holds no delimiter) reads back as those parts.
// The input's first byte picks the check; the rest is cut into its pieces by 0xFF bytes.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/http/multipart.h"
#include "fuzz_support.h"

namespace {

using docgate::FormPart;
using docgate::ParseMultipartForm;

std::vector<std::string_view> Pieces(std::string_view text) {
  std::vector<std::string_view> pieces;
  std::size_t at = 0;
  for (;;) {
    const std::size_t cut = text.find('\xFF', at);
    pieces.push_back(text.substr(at, cut - at));
    if (cut == std::string_view::npos) return pieces;
    at = cut + 1;
  }
}

void AnyInput(std::string_view text) {
  const std::vector<std::string_view> pieces = Pieces(text);
  const std::string_view content_type = pieces.front();
  const std::string_view body = pieces.size() > 1 ? text.substr(content_type.size() + 1) : "";
  const auto parts = ParseMultipartForm(content_type, body);
  if (!parts) return;
  FUZZ_CHECK(parts->size() <= docgate::kMaxFormParts);
  for (const FormPart& part : *parts) {
    FUZZ_CHECK(!part.name.empty());
    FUZZ_CHECK(part.body.data() >= body.data() &&
               part.body.data() + part.body.size() <= body.data() + body.size());
  }
}

// Plain text for a header parameter: no quote, backslash, CR or LF.
bool Plain(std::string_view text) {
  return text.find_first_of("\"\\\r\n") == std::string_view::npos;
}

void RoundTrip(std::string_view text) {
  const std::vector<std::string_view> pieces = Pieces(text);
  if (pieces.size() < 3) return;
  const std::string_view name = pieces[0];
  const std::string_view filename = pieces[1];
  const std::string_view content = pieces[2];
  const std::string boundary = "docgate-fuzz-boundary-7f3a";
  if (name.empty() || !Plain(name) || !Plain(filename) ||
      content.find("--" + boundary) != std::string_view::npos) {
    return;
  }
  const std::string body = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"" +
                           std::string(name) + "\"; filename=\"" + std::string(filename) +
                           "\"\r\nContent-Type: application/octet-stream\r\n\r\n" +
                           std::string(content) + "\r\n--" + boundary + "--\r\n";
  const auto parts = ParseMultipartForm("multipart/form-data; boundary=" + boundary, body);
  FUZZ_CHECK(parts.ok(), parts.ok() ? "" : parts.error().detail);
  FUZZ_CHECK(parts->size() == 1);
  const FormPart& part = parts->front();
  FUZZ_CHECK(part.name == name);
  FUZZ_CHECK(part.has_filename && part.filename == filename);
  FUZZ_CHECK(part.content_type == "application/octet-stream");
  FUZZ_CHECK(part.body == content);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text = docgate::fuzz::AsText(data + 1, size - 1);
  if (data[0] % 2 == 0) {
    AnyInput(text);
  } else {
    RoundTrip(text);
  }
  return 0;
}
