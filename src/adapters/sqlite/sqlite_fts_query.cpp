#include "adapters/sqlite/sqlite_fts_query.h"

namespace docgate {

std::string FtsQuery(const std::vector<std::string>& words) {
  std::string query;
  for (const std::string& word : words) {
    if (!query.empty()) query += ' ';
    query += '"';
    for (const char c : word) {
      if (c == '"') query += '"';
      query += c;
    }
    query += '"';
  }
  return query;
}

}  // namespace docgate
