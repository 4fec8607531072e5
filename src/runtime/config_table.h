#pragma once

// The one table of docgate's DOCGATE_* environment variables: each variable's name, type,
// component, bounds, description and the Config field it sets. LoadConfig parses by it,
// `docgate config-reference` renders it (docs/configuration.md), and the unknown-variable warning
// at start checks the environment against it. A variable the code reads is added here, nowhere
// else: a unit test fails for a DOCGATE_* name in src/ that the table lacks.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "runtime/config.h"

namespace docgate {

// Where a variable belongs; the reference groups the variables by it, in this order.
enum class ConfigComponent {
  kHttp,
  kDatabase,
  kAuth,
  kReviews,
  kGate,
  kRedis,
  kAmqp,
  kOutbox,
  kIdempotency,
  kConsumers,
  kMongoDb,
  kEmbeddings,
  kImport,
  kLogging,
};

// What a variable's text means: how it is parsed, and what the reference calls it.
enum class ConfigType {
  kListen,   // HOST:PORT, host an IP address or localhost
  kString,   // any text
  kSecret,   // any text, never shown or logged
  kUrl,      // a URL (its scheme and form are checked by its component's validator)
  kPath,     // a file
  kInteger,  // decimal, into an int or a std::size_t
  kMillis,   // decimal milliseconds
  kHours,    // decimal hours
  kOnOff,    // on or off
  kEnum,     // one of `values`
};

// The Config field a variable sets, as a function that returns it (captureless lambdas convert).
template <typename T>
using ConfigFieldOf = T& (*)(Config&);
using ConfigField =
    std::variant<ConfigFieldOf<HttpConfig>, ConfigFieldOf<std::string>, ConfigFieldOf<bool>,
                 ConfigFieldOf<int>, ConfigFieldOf<std::size_t>,
                 ConfigFieldOf<std::chrono::milliseconds>, ConfigFieldOf<std::chrono::hours>>;

struct ConfigVariable {
  std::string_view name;
  ConfigComponent component = ConfigComponent::kHttp;
  ConfigType type = ConfigType::kString;
  ConfigField field;
  std::string_view description;  // one line, Markdown
  // Bounds of the value (kInteger, kMillis, kHours), inclusive. LoadConfig does not check them:
  // the component's validator does (ValidateConfig), with the variable's name; a unit test proves
  // that the validators accept exactly these bounds, so the reference states what is enforced.
  std::optional<std::int64_t> min;
  std::optional<std::int64_t> max;
  std::span<const std::string_view> values;  // kEnum and kOnOff: the values, as documented
  // kEnum: also accepted, undocumented (spellings kept for compatibility).
  std::span<const std::string_view> also_accepted;
  // Unset, the variable takes the value of this one (of the same type) instead of its field's
  // default.
  std::string_view default_from;
  // What else bounds the value (another variable, a condition), for the reference.
  std::string_view rule;

  constexpr ConfigVariable DefaultFrom(std::string_view other) const {
    ConfigVariable copy = *this;
    copy.default_from = other;
    return copy;
  }
  constexpr ConfigVariable Rule(std::string_view text) const {
    ConfigVariable copy = *this;
    copy.rule = text;
    return copy;
  }
};

// Every variable, grouped by component in ConfigComponent's order.
std::span<const ConfigVariable> ConfigVariables();

// The table's entry for `name`; nullptr when it has none.
const ConfigVariable* FindConfigVariable(std::string_view name);

// "a, b or c": the values of a kEnum or kOnOff variable, as its messages and the reference list
// them.
std::string ValuesText(const ConfigVariable& variable);

// Why `text` is not a value of the kEnum or kOnOff `variable` ("NAME must be a, b or c, got
// 'x'"), or nullopt when it is one (an also_accepted spelling included).
std::optional<std::string> ValueProblem(const ConfigVariable& variable, std::string_view text);

}  // namespace docgate
