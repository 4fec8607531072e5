#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace docgate {

// One `name[=value]` of a query string, as written (not percent-decoded): `value` is nullopt for
// a name without '=', and "" for `name=`.
struct QueryPair {
  std::string_view name;
  std::optional<std::string_view> value;
};

// The pairs of `query` (the text after '?') in order, split at '&'; empty pairs (`a&&b`, a
// trailing '&') are left out. The views point into `query`.
std::vector<QueryPair> SplitQuery(std::string_view query);

}  // namespace docgate
