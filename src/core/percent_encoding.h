#pragma once

#include <string>
#include <string_view>

namespace docgate {

// `text` with every %XX escape (two hex digits, either case) decoded to its
// byte; a '%' not followed by two hex digits is kept as written. Lenient on
// purpose: for URLs' userinfo and for finding secrets in messages, where a
// malformed escape is not an error.
std::string PercentDecoded(std::string_view text);

// `text` with every byte but RFC 3986's unreserved characters (A-Z a-z 0-9 - . _ ~) written as
// %XX (upper-case hex): a query parameter's name or value, or a form field's
// (application/x-www-form-urlencoded reads %20 as a space as well as '+').
std::string PercentEncoded(std::string_view text);

} // namespace docgate
