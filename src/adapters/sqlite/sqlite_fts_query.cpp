#include "adapters/sqlite/sqlite_fts_query.h"

namespace docgate {

namespace {

void AppendString(std::string_view text, std::string& fts) {
  fts += '"';
  for (const char c : text) {
    if (c == '"') fts += '"';
    fts += c;
  }
  fts += '"';
}

}  // namespace

std::string FtsQuery(const SearchQuery& query) {
  return WriteQuery(
      query, [](const SearchPhrase& phrase, std::string& out) { AppendString(phrase.text, out); },
      " AND ", " OR ");
}

}  // namespace docgate
