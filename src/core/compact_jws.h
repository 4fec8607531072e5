#pragma once

#include <optional>
#include <string_view>

namespace docgate {

// The parts of a compact JWS (RFC 7515, `header.payload.signature`), still base64url-encoded
// (DecodeBase64Url), as views into the token.
struct JwsParts {
  std::string_view header;
  std::string_view payload;
  std::string_view signature;
  std::string_view signing_input;  // `header.payload`, what the signature signs
};

// nullopt unless `token` has exactly two dots.
std::optional<JwsParts> SplitCompactJws(std::string_view token);

}  // namespace docgate
