#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace docgate {

// The length in bytes of the well-formed UTF-8 sequence that starts at s[at] (1..4), or 0 when
// none does there (a stray continuation byte, a truncated sequence, an overlong form, a surrogate
// or a code point above U+10FFFF). Requires at < s.size().
std::size_t Utf8SequenceLength(std::string_view s, std::size_t at);

// The number of code points in `text`; nullopt when it is not valid UTF-8 (as Utf8SequenceLength
// judges each sequence).
std::optional<std::size_t> Utf8Length(std::string_view text);

// The longest prefix of `text` of at most `max_bytes` bytes that does not end inside a code point:
// valid UTF-8 when `text` is. (It backs up over at most three continuation bytes.)
std::string_view Utf8Prefix(std::string_view text, std::size_t max_bytes);

// True when `text` is valid UTF-8 without U+0000: text that every store can keep (PostgreSQL's
// `text` refuses both invalid sequences and NUL).
bool IsStorableText(std::string_view text);

// True when `text` is valid UTF-8 without control characters (U+0000..U+001F, U+007F..U+009F):
// text that shows on one line wherever it is printed or logged.
bool IsPrintableText(std::string_view text);

// `text` made safe for a one-line text log: each control character and each byte of an invalid
// sequence becomes \xNN, a backslash becomes \\; valid printable UTF-8 is kept as it is.
std::string EscapeForLog(std::string_view text);

}  // namespace docgate
