#pragma once

// docgate's text analyzer (app/text_analyzer.h) in PostgreSQL's full-text types. PostgreSQL
// cannot run the analyzer, so docgate writes its terms: a chunk's terms as a tsvector literal
// (title weight A, content weight B) and a query's phrases as a tsquery literal, both read by a
// plain cast (`$1::tsvector`, `$1::tsquery`) with no text search configuration in between.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "app/search_query.h"
#include "app/search_ranking.h"

namespace docgate {

// The tsvector of a chunk: each term of the title (analysed for the index) at its position + 1
// with weight A, then each term of the content with weight B at positions after a gap, so that
// no phrase spans the two. PostgreSQL's limits are kept: positions above 16,383 are 16,383, a
// term gets at most 256 positions (its first), and terms of 2,047 bytes or more are left out.
// `length`, when given, gets the number of positions in both (BM25's length of the chunk).
std::string TsVectorLiteral(std::string_view title, std::string_view content,
                            std::int32_t* length = nullptr);

// The finders of a plan (app/search_ranking.h) as a tsquery: each phrase's terms joined by `<->`,
// the phrases by `&` (required) or `|`. "" for none.
std::string TsFindersLiteral(const SearchQuery& query, const SearchPlan& plan);

// Each phrase of a query as a tsquery of its own (its terms joined by `<->`), in order.
std::vector<std::string> TsPhraseLiterals(const SearchQuery& query);

}  // namespace docgate
