#include "core/query_string.h"

namespace docgate {

std::vector<QueryPair> SplitQuery(std::string_view query) {
  std::vector<QueryPair> pairs;
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const std::size_t equals = pair.find('=');
    if (equals == std::string_view::npos) {
      pairs.push_back({pair, std::nullopt});
    } else {
      pairs.push_back({pair.substr(0, equals), pair.substr(equals + 1)});
    }
  }
  return pairs;
}

}  // namespace docgate
