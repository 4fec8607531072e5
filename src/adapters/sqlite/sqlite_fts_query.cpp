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
  std::string all;
  for (const SearchPhrase& phrase : query.phrases) {
    if (!all.empty()) all += ' ';
    AppendString(phrase.text, all);
  }
  if (query.phrases.size() < 2) return all;
  std::string fts = "(" + all + ") OR ";
  AppendString(query.Joined().text, fts);
  return fts;
}

}  // namespace docgate
