#pragma once

#include <string>

#include "app/search_query.h"

namespace docgate {

// The phrases of a user's query (ParseSearchQuery) as an FTS5 query that cannot be anything else:
// each phrase's text an FTS5 string (in double quotes, with `"` doubled), which FTS5 tokenizes
// with docgate's analyzer like the indexed text. The required phrases are ANDed; the optional
// ones ORed, and ANDed with the required ones as `(first required OR optional...)`, which matches
// nothing more but makes bm25 count the optional phrases too. No operator, column filter, prefix
// `*`, `^` or parenthesis of the user's survives as syntax, so no query raises an FTS5 syntax
// error. "" for no phrases.
std::string FtsQuery(const SearchQuery& query);

}  // namespace docgate
