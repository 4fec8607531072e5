#pragma once

// How a row of the configuration table (config_table.cpp) is written: one constexpr builder per
// kind of variable, which sets its type, bounds or accepted values, and the value lists the
// table's rows share. Only config_table.cpp includes it.

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "runtime/config_table.h"

namespace docgate::config_rows {

using std::chrono::hours;
using std::chrono::milliseconds;
using Bound = std::optional<std::int64_t>;

inline constexpr std::array<std::string_view, 2> kOnOff = {"on", "off"};
inline constexpr std::array<std::string_view, 7> kLogLevels = {"trace", "debug",    "info", "warn",
                                                               "error", "critical", "off"};
// spdlog's own name of "warn", accepted as ever.
inline constexpr std::array<std::string_view, 1> kLogLevelSpellings = {"warning"};
inline constexpr std::array<std::string_view, 2> kLogFormats = {"json", "text"};

// Members assigned one by one: GCC 12 warns of the members a designated initializer leaves to
// their defaults.
constexpr ConfigVariable Entry(std::string_view name, ConfigComponent component, ConfigType type,
                               std::string_view description, ConfigField field) {
  ConfigVariable variable;
  variable.name = name;
  variable.component = component;
  variable.type = type;
  variable.field = field;
  variable.description = description;
  return variable;
}

constexpr ConfigVariable Listen(std::string_view name, ConfigComponent component,
                                std::string_view description, ConfigFieldOf<HttpConfig> field) {
  return Entry(name, component, ConfigType::kListen, description, field);
}

constexpr ConfigVariable Text(std::string_view name, ConfigComponent component, ConfigType type,
                              std::string_view description, ConfigFieldOf<std::string> field) {
  return Entry(name, component, type, description, field);
}

constexpr ConfigVariable Number(std::string_view name, ConfigComponent component, ConfigType type,
                                Bound min, Bound max, std::string_view description,
                                ConfigField field) {
  ConfigVariable variable = Entry(name, component, type, description, field);
  variable.min = min;
  variable.max = max;
  return variable;
}

constexpr ConfigVariable Integer(std::string_view name, ConfigComponent component, Bound min,
                                 Bound max, std::string_view description,
                                 ConfigFieldOf<int> field) {
  return Number(name, component, ConfigType::kInteger, min, max, description, field);
}

constexpr ConfigVariable Integer(std::string_view name, ConfigComponent component, Bound min,
                                 Bound max, std::string_view description,
                                 ConfigFieldOf<std::size_t> field) {
  return Number(name, component, ConfigType::kInteger, min, max, description, field);
}

// Every duration in milliseconds has a least value and no greatest.
constexpr ConfigVariable Millis(std::string_view name, ConfigComponent component, Bound min,
                                std::string_view description, ConfigFieldOf<milliseconds> field) {
  return Number(name, component, ConfigType::kMillis, min, std::nullopt, description, field);
}

constexpr ConfigVariable Hours(std::string_view name, ConfigComponent component, Bound min,
                               Bound max, std::string_view description,
                               ConfigFieldOf<hours> field) {
  return Number(name, component, ConfigType::kHours, min, max, description, field);
}

constexpr ConfigVariable OnOff(std::string_view name, ConfigComponent component,
                               std::string_view description, ConfigFieldOf<bool> field) {
  ConfigVariable variable = Entry(name, component, ConfigType::kOnOff, description, field);
  variable.values = kOnOff;
  return variable;
}

constexpr ConfigVariable Enum(std::string_view name, ConfigComponent component,
                              std::span<const std::string_view> values,
                              std::span<const std::string_view> also_accepted,
                              std::string_view description, ConfigFieldOf<std::string> field) {
  ConfigVariable variable = Entry(name, component, ConfigType::kEnum, description, field);
  variable.values = values;
  variable.also_accepted = also_accepted;
  return variable;
}

}  // namespace docgate::config_rows
