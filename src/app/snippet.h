#pragma once

// The excerpt of a search hit and where the query matched in it, made by docgate from the chunk's
// text (app/search_query.h), so every backend shows the same snippet for the same chunk.

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "app/search_query.h"

namespace docgate {

// [start, end) in Unicode code points of the snippet.
using Highlight = std::pair<std::size_t, std::size_t>;

struct Snippet {
  std::string text;                   // plain text: a part of the content, whole code points
  std::vector<Highlight> highlights;  // the matches of the query's phrases, ascending, disjoint
  bool operator==(const Snippet&) const = default;
};

// At most about `max_chars` code points of `content`: all of it when it is that short, else the
// window with matches of the most distinct phrases (the earliest of equals; windows are tried at
// the first 32 matches, so the cost stays linear in the content), starting a few words
// before its first match, cut at word boundaries and trimmed of whitespace. A chunk found only by
// its title gives its beginning, without highlights.
Snippet MakeSnippet(std::string_view content, const SearchQuery& query,
                    std::size_t max_chars = 160);

}  // namespace docgate
