#include "core/query_string.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace docgate {
namespace {

std::vector<std::pair<std::string, std::string>> Pairs(std::string_view query) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, value] : SplitQuery(query)) {
    out.emplace_back(std::string(name), value ? "=" + std::string(*value) : "(none)");
  }
  return out;
}

TEST(QueryStringTest, SplitsAtAmpersandsAndTheFirstEqualsSign) {
  using P = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(Pairs(""), P{});
  EXPECT_EQ(Pairs("q=%E5%A4%87%E4%BB%BD&limit=5"),
            (P{{"q", "=%E5%A4%87%E4%BB%BD"}, {"limit", "=5"}}));
  EXPECT_EQ(Pairs("&&a&b=&c=x=y&"), (P{{"a", "(none)"}, {"b", "="}, {"c", "=x=y"}}));
  EXPECT_EQ(Pairs("=v"), (P{{"", "=v"}}));
}

}  // namespace
}  // namespace docgate
