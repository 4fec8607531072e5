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
  std::string required;
  std::string optional;
  const SearchPhrase* first_required = nullptr;
  for (const SearchPhrase& phrase : query.phrases) {
    std::string& list = phrase.required ? required : optional;
    if (!list.empty()) list += phrase.required ? " AND " : " OR ";
    AppendString(phrase.text, list);
    if (phrase.required && first_required == nullptr) first_required = &phrase;
  }
  if (first_required == nullptr || optional.empty()) return required.empty() ? optional : required;
  std::string either;
  AppendString(first_required->text, either);
  return required + " AND (" + either + " OR " + optional + ")";
}

}  // namespace docgate
