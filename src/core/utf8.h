#pragma once

#include <cstddef>
#include <string_view>

namespace docgate {

// The length in bytes of the well-formed UTF-8 sequence that starts at s[at] (1..4), or 0 when
// none does there (a stray continuation byte, a truncated sequence, an overlong form, a surrogate
// or a code point above U+10FFFF). Requires at < s.size().
std::size_t Utf8SequenceLength(std::string_view s, std::size_t at);

}  // namespace docgate
