#include "core/compact_jws.h"

namespace docgate {

std::optional<JwsParts> SplitCompactJws(std::string_view token) {
  const std::size_t first = token.find('.');
  if (first == std::string_view::npos) return std::nullopt;
  const std::size_t second = token.find('.', first + 1);
  if (second == std::string_view::npos || token.find('.', second + 1) != std::string_view::npos) {
    return std::nullopt;
  }
  return JwsParts{token.substr(0, first), token.substr(first + 1, second - first - 1),
                  token.substr(second + 1), token.substr(0, second)};
}

}  // namespace docgate
