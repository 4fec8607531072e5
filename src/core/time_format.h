#pragma once

// The one text form of a time in docgate's API and events: RFC 3339, UTC, milliseconds.

#include <optional>
#include <string>
#include <string_view>

#include "core/model.h"

namespace docgate {

// "2026-11-29T14:00:00.123Z".
std::string FormatTime(TimePoint time);
// The inverse of FormatTime for exactly that shape; nullopt for anything else.
std::optional<TimePoint> ParseTime(std::string_view text);

}  // namespace docgate
