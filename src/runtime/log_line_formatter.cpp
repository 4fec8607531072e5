#include "runtime/log_line_formatter.h"

#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>

namespace docgate {
namespace {

// The request log's time (RequestLog::MakeFormatter), so that all lines read alike.
constexpr const char* kTimePattern = "%Y-%m-%dT%H:%M:%S.%eZ";

}  // namespace

LogFormat LogFormatOf(std::string_view setting) {
  if (setting == "json") return LogFormat::kJson;
  if (setting == "text") return LogFormat::kText;
  return ::isatty(STDERR_FILENO) == 1 ? LogFormat::kText : LogFormat::kJson;
}

LogLineFormatter::LogLineFormatter(LogFormat format, std::shared_ptr<const SecretPieces> secrets)
    : format_(format),
      secrets_(std::move(secrets)),
      time_(kTimePattern, spdlog::pattern_time_type::utc, "") {}

void LogLineFormatter::format(const spdlog::details::log_msg& message, spdlog::memory_buf_t& dest) {
  const std::string_view payload(message.payload.data(), message.payload.size());
  const std::string text = secrets_ ? secrets_->Redact(payload) : std::string(payload);
  spdlog::memory_buf_t time;
  time_.format(message, time);
  const spdlog::string_view_t level = spdlog::level::to_string_view(message.level);
  std::string line;
  if (format_ == LogFormat::kJson) {
    const nlohmann::ordered_json object = {{"time", std::string(time.data(), time.size())},
                                           {"level", std::string(level.data(), level.size())},
                                           {"message", text}};
    line = object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } else {
    line = "[" + std::string(time.data(), time.size()) + "] [" +
           std::string(level.data(), level.size()) + "] " + text;
  }
  line += '\n';
  dest.append(line.data(), line.data() + line.size());
}

std::unique_ptr<spdlog::formatter> LogLineFormatter::clone() const {
  return std::make_unique<LogLineFormatter>(format_, secrets_);
}

}  // namespace docgate
