#include "core/time_format.h"

#include <chrono>
#include <cstdio>

namespace docgate {
namespace {

// Exactly `width` ASCII digits at text[pos...].
std::optional<int> Digits(std::string_view text, std::size_t pos, std::size_t width) {
  if (pos + width > text.size()) return std::nullopt;
  int value = 0;
  for (std::size_t i = pos; i < pos + width; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

}  // namespace

std::string FormatTime(TimePoint time) {
  using namespace std::chrono;
  const auto day = floor<days>(time);
  const year_month_day ymd{day};
  const hh_mm_ss<milliseconds> hms{time - day};
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ", int{ymd.year()},
                unsigned{ymd.month()}, unsigned{ymd.day()}, static_cast<int>(hms.hours().count()),
                static_cast<int>(hms.minutes().count()), static_cast<int>(hms.seconds().count()),
                static_cast<int>(hms.subseconds().count()));
  return buffer;
}

std::optional<TimePoint> ParseTime(std::string_view text) {
  using namespace std::chrono;
  // YYYY-MM-DDTHH:MM:SS.mmmZ
  if (text.size() != 24 || text[4] != '-' || text[7] != '-' || text[10] != 'T' ||
      text[13] != ':' || text[16] != ':' || text[19] != '.' || text[23] != 'Z') {
    return std::nullopt;
  }
  const auto y = Digits(text, 0, 4), mo = Digits(text, 5, 2), d = Digits(text, 8, 2);
  const auto h = Digits(text, 11, 2), mi = Digits(text, 14, 2), s = Digits(text, 17, 2);
  const auto ms = Digits(text, 20, 3);
  if (!y || !mo || !d || !h || !mi || !s || !ms) return std::nullopt;
  const year_month_day ymd{year{*y}, month{static_cast<unsigned>(*mo)},
                           day{static_cast<unsigned>(*d)}};
  if (!ymd.ok() || *h > 23 || *mi > 59 || *s > 59) return std::nullopt;
  return TimePoint{sys_days{ymd}.time_since_epoch() + hours{*h} + minutes{*mi} + seconds{*s} +
                   milliseconds{*ms}};
}

}  // namespace docgate
