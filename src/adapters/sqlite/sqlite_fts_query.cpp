#include "adapters/sqlite/sqlite_fts_query.h"

namespace docgate {

void AppendFtsString(std::string_view text, std::string& fts) {
  fts += '"';
  for (const char c : text) {
    if (c == '"') fts += '"';
    fts += c;
  }
  fts += '"';
}

std::string FtsQuery(const SearchQuery& query, const SearchPlan& plan,
                     std::vector<double>& coefficients) {
  if (query.empty()) return "";
  // Each phrase written to find weighs nothing: it is scored where it is written again, below.
  const std::string finders = WriteFinders(
      query, plan,
      [&](const SearchPhrase& phrase, std::string& out) {
        AppendFtsString(phrase.text, out);
        coefficients.push_back(0);
      },
      " AND ", " OR ");
  std::string all;
  for (const SearchPhrase& phrase : query.phrases) {
    if (!all.empty()) all += " OR ";
    AppendFtsString(phrase.text, all);
  }
  coefficients.insert(coefficients.end(), plan.coefficient.begin(), plan.coefficient.end());
  return finders + " AND (" + all + ")";
}

}  // namespace docgate
