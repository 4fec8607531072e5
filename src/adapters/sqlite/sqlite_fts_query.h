#pragma once

#include <string>

#include "app/search_query.h"

namespace docgate {

// The phrases of a user's query (ParseSearchQuery) as an FTS5 query that cannot be anything else:
// each phrase's text an FTS5 string (in double quotes, with `"` doubled), which FTS5 tokenizes
// with docgate's analyzer like the indexed text, and the strings ANDed. No operator, column
// filter, prefix `*`, `^` or parenthesis of the user's survives as syntax, so no query raises an
// FTS5 syntax error. With several phrases, `OR` the phrases together as one phrase: it matches
// nothing more (what has them adjacent has them all), but bm25 counts its occurrences, so chunks
// that have the words next to each other rank first. "" for no phrases.
std::string FtsQuery(const SearchQuery& query);

}  // namespace docgate
