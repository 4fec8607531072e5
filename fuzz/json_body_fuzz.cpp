// Invariant: ParseJsonBody (adapters/http/dto.h) answers any body with a value or VALIDATION,
// never anything else and never by throwing; it answers with a value exactly when the body is
// JSON that nests at most kMaxJsonDepth arrays and objects, and then the value is what a plain
// parse reads and nests no deeper than that.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>
#include <vector>

#include "adapters/http/dto.h"
#include "fuzz_support.h"

namespace {

using docgate::fuzz::AsText;
using nlohmann::json;

// How deep `text` nests arrays and objects, counted on the text (brackets outside strings).
int TextDepth(std::string_view text) {
  int depth = 0;
  int deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

// How deep `value` nests arrays and objects, without recursion.
int ValueDepth(const json& value) {
  int deepest = 0;
  std::vector<std::pair<const json*, int>> stack{{&value, 0}};
  while (!stack.empty()) {
    const auto [node, depth] = stack.back();
    stack.pop_back();
    if (!node->is_structured()) continue;
    deepest = std::max(deepest, depth + 1);
    for (const json& child : *node) stack.emplace_back(&child, depth + 1);
  }
  return deepest;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body = AsText(data, size);
  const auto parsed = docgate::ParseJsonBody(body);
  // JSON text holds no NUL byte (nlohmann's accept would stop at one as at the end).
  const bool is_json = body.find('\0') == std::string_view::npos && json::accept(body);
  if (!parsed) {
    FUZZ_CHECK(parsed.error().code == docgate::ErrorCode::kValidation);
    FUZZ_CHECK(!is_json || TextDepth(body) > docgate::kMaxJsonDepth);
    return 0;
  }
  FUZZ_CHECK(is_json);
  FUZZ_CHECK(TextDepth(body) <= docgate::kMaxJsonDepth);
  FUZZ_CHECK(ValueDepth(*parsed) <= docgate::kMaxJsonDepth);
  FUZZ_CHECK(*parsed == json::parse(body));
  return 0;
}
