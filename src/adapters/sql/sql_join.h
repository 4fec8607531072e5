#pragma once

// SQL text joined from literals at compile time and ended with a NUL, so that a store writes a
// column list once and a statement still passes as a C string (PostgreSQL's prepared statements).

#include <array>
#include <cstddef>

namespace docgate::sql {

template <std::size_t N>
struct JoinedText {
  std::array<char, N> chars{};
  constexpr const char* c_str() const { return chars.data(); }
};

// The parts one after the other, NUL-ended: Join("SELECT a", " FROM t").c_str().
template <std::size_t... N>
consteval JoinedText<(N + ...) - sizeof...(N) + 1> Join(const char (&... parts)[N]) {
  JoinedText<(N + ...) - sizeof...(N) + 1> out;
  std::size_t at = 0;
  for (const auto* part : {static_cast<const char*>(parts)...}) {
    for (; *part != '\0'; ++part) out.chars[at++] = *part;
  }
  out.chars[at] = '\0';
  return out;
}

}  // namespace docgate::sql
