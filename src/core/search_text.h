#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace docgate {

// The words of a user's full-text query as the stores hand them to their engines: the text split
// at whitespace, with ASCII control characters (U+0000 included) and bytes that are not part of
// well-formed UTF-8 taken as whitespace. Nothing else is interpreted: quotes, operators and
// punctuation stay inside the words, for each engine to make harmless its own way. Empty when the
// text holds no word.
std::vector<std::string> SearchWords(std::string_view text);

}  // namespace docgate
