#pragma once

// SQL text joined from literals at compile time, so that a store writes each column list once.

#include <array>
#include <cstddef>
#include <string_view>

namespace docgate::sqlite_sql {

template <std::size_t N>
struct SqlText {
  std::array<char, N> chars{};
  constexpr operator std::string_view() const {  // NOLINT(google-explicit-constructor)
    return {chars.data(), N};
  }
};

template <std::size_t... N>
consteval SqlText<(N + ...) - sizeof...(N)> Sql(const char (&... parts)[N]) {
  SqlText<(N + ...) - sizeof...(N)> out;
  std::size_t at = 0;
  for (const std::string_view part : {std::string_view(parts, N - 1)...}) {
    for (const char c : part) out.chars[at++] = c;
  }
  return out;
}

}  // namespace docgate::sqlite_sql
