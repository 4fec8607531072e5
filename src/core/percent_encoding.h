#pragma once

#include <string>
#include <string_view>

namespace docgate {

// `text` with every %XX escape (two hex digits, either case) decoded to its
// byte; a '%' not followed by two hex digits is kept as written. Lenient on
// purpose: for URLs' userinfo and for finding secrets in messages, where a
// malformed escape is not an error.
std::string PercentDecoded(std::string_view text);

} // namespace docgate
