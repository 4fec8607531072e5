#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace docgate {

// Base64url without padding (RFC 4648 section 5), as JWS and JWK use it. Decoding is strict: any
// character outside the alphabet, '=' padding, a length of 1 mod 4 or set bits left over in the
// last character (a second spelling of the same bytes) is nullopt.
std::optional<std::string> DecodeBase64Url(std::string_view text);
std::string EncodeBase64Url(std::string_view bytes);
// Base64 with the standard alphabet and '=' padding (RFC 4648 section 4): HTTP Basic credentials.
std::string EncodeBase64(std::string_view bytes);

}  // namespace docgate
