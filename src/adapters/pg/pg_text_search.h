#pragma once

// docgate's text analyzer (app/text_analyzer.h) in PostgreSQL's full-text types. PostgreSQL
// cannot run the analyzer, so docgate writes its terms: a chunk's terms as a tsvector literal
// (title weight A, content weight B) and a query's phrases as a tsquery literal, both read by a
// plain cast (`$1::tsvector`, `$1::tsquery`) with no text search configuration in between.

#include <string>
#include <string_view>
#include <vector>

#include "app/search_query.h"

namespace docgate {

// The tsvector of a chunk: each term of the title (analysed for the index) at its position + 1
// with weight A, then each term of the content with weight B at positions after a gap, so that
// no phrase spans the two. PostgreSQL's limits are kept: positions above 16,383 are 16,383, a
// term gets at most 256 positions (its first), and terms of 2,047 bytes or more are left out.
std::string TsVectorLiteral(std::string_view title, std::string_view content);

// The tsquery of a query: each phrase its terms joined by `<->` (adjacent, in order); the
// required phrases joined by `&`, the optional ones by `|`, and both as `required & (first
// required | optional...)`, which matches nothing more but makes ts_rank_cd count the optional
// phrases too. "" for an empty query.
std::string TsQueryLiteral(const SearchQuery& query);

// Each phrase of a query as a tsquery of its own (its terms joined by `<->`), in order.
std::vector<std::string> TsPhraseLiterals(const SearchQuery& query);

}  // namespace docgate
