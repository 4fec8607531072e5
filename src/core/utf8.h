#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace docgate {

// The number of code points in `text`; nullopt when it is not valid UTF-8 (overlong forms,
// surrogates and code points above U+10FFFF included).
std::optional<std::size_t> Utf8Length(std::string_view text);

}  // namespace docgate
