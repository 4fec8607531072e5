#pragma once

// docgate's configuration as the operator meets it: the reference of every DOCGATE_* variable
// (docs/configuration.md, `docgate config-reference`) and the warning for a DOCGATE_* variable
// the table does not know. Both are made from the table in config_table.h.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/config_table.h"

namespace docgate {

// What the reference calls a component ("HTTP server", ...) and a type ("milliseconds", ...).
std::string_view ComponentTitle(ConfigComponent component);
std::string_view TypeName(ConfigType type);

// The default as the reference shows it: the field's value in a default Config ("5000", "on",
// "docgate.events"), "(none)" for an empty string, a secret or a number outside the bounds (which
// stands for unset), or the name of the variable it defaults to.
std::string DefaultText(const ConfigVariable& variable);

// The bounds as the reference shows them ("1..1024", "at least 1", "on, off"), with the rule.
std::string BoundsText(const ConfigVariable& variable);

// The reference of every variable, grouped by component: docs/configuration.md, as
// `docgate config-reference` prints it.
std::string ConfigReference();

// Warnings for the DOCGATE_* names among `environment_names` that are not in the table, each
// naming the closest known name when one is near (a likely typo): "unknown variable DOCGATE_LISTN
// is ignored; did you mean DOCGATE_LISTEN?". Names of the tests and tools (DOCGATE_TEST_*,
// DOCGATE_BINARY, ...) are not docgate's settings and get none. Names only, never a value: the
// environment holds secrets.
std::vector<std::string> UnknownVariableWarnings(std::span<const std::string> environment_names);

}  // namespace docgate
