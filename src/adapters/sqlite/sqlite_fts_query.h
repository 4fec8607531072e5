#pragma once

#include <string>
#include <vector>

namespace docgate {

// The words of a user's query (SearchWords) as an FTS5 query that cannot be anything else: each
// word an FTS5 string (in double quotes, with `"` doubled), which FTS5 tokenizes like the indexed
// text, and the strings ANDed. No operator, column filter, prefix `*`, `^` or parenthesis of the
// user's survives as syntax, so no words raise an FTS5 syntax error. "" for no words.
std::string FtsQuery(const std::vector<std::string>& words);

}  // namespace docgate
