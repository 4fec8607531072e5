#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace docgate {

// The length in bytes of the well-formed UTF-8 sequence that starts at s[at] (1..4), or 0 when
// none does there (a stray continuation byte, a truncated sequence, an overlong form, a surrogate
// or a code point above U+10FFFF). Requires at < s.size().
std::size_t Utf8SequenceLength(std::string_view s, std::size_t at);

// The number of code points in `text`; nullopt when it is not valid UTF-8 (as Utf8SequenceLength
// judges each sequence).
std::optional<std::size_t> Utf8Length(std::string_view text);

}  // namespace docgate
