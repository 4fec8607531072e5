#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "app/search_query.h"
#include "app/search_ranking.h"

namespace docgate {

// The FTS5 query of a search plan (app/search_ranking.h): `(finders) AND ("p1" OR "p2" ...)`,
// with every phrase of the query in the second part, which selects nothing more (the finders are
// among them) but lets docgate_bm25 (sqlite_bm25.h) score all of them. `coefficients` gets
// docgate_bm25's coefficients, one per phrase in the query's order: 0 for the finders' own copies
// (and the sets'), which come first, then the plan's. Each phrase's text is an FTS5 string (in
// double quotes, `"` doubled), which FTS5 tokenizes with docgate's analyzer like the indexed text;
// so no operator, column filter, prefix `*`, `^` or parenthesis of the user's survives as syntax,
// and no query raises an FTS5 syntax error. "" for an empty query.
std::string FtsQuery(const SearchQuery& query, const SearchPlan& plan,
                     std::vector<double>& coefficients);

// `text` as an FTS5 string appended to `fts`: in double quotes, `"` doubled.
void AppendFtsString(std::string_view text, std::string& fts);

}  // namespace docgate
