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
  const auto quoted = [](const SearchPhrase& phrase, std::string& out) {
    AppendFtsString(phrase.text, out);
  };
  std::string all;
  for (std::size_t i = 0; i < query.phrases.size(); ++i) {
    if (plan.finds[i]) coefficients.push_back(0);
    if (!all.empty()) all += " OR ";
    quoted(query.phrases[i], all);
  }
  coefficients.insert(coefficients.end(), plan.coefficient.begin(), plan.coefficient.end());
  return WriteFinders(query, plan, quoted, " AND ", " OR ") + " AND (" + all + ")";
}

}  // namespace docgate
