#include "adapters/http/request_trace.h"

#include <spdlog/logger.h>
#include <spdlog/pattern_formatter.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <utility>

namespace docgate {
namespace {

constexpr std::size_t kMaxRequestIdLength = 128;

// The opening of the line; RequestLog writes the rest of the object as the message.
constexpr const char* kRequestLogPattern =
    R"({"time":"%Y-%m-%dT%H:%M:%S.%eZ","level":"%l",%v})";

bool IsRequestIdChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

}  // namespace

bool IsAcceptableRequestId(std::string_view id) {
  if (id.empty() || id.size() > kMaxRequestIdLength) return false;
  for (const char c : id) {
    if (!IsRequestIdChar(c)) return false;
  }
  return true;
}

std::string_view MethodLabel(HttpVerb verb) {
  if (verb == HttpVerb::unknown) return "OTHER";
  const auto name = boost::beast::http::to_string(verb);
  return {name.data(), name.size()};
}

RequestLog::RequestLog(std::shared_ptr<spdlog::logger> logger, Form form)
    : logger_(std::move(logger)), form_(form) {}

void RequestLog::OnRequest(const CompletedRequest& request) noexcept {
  const unsigned status = request.response.result_int();
  const auto level = status >= 500 ? spdlog::level::warn : spdlog::level::info;
  if (!logger_->should_log(level)) return;
  const double duration_ms =
      std::round(std::chrono::duration<double, std::micro>(request.duration).count()) / 1000.0;
  const nlohmann::ordered_json fields = {
      {"request_id", request.trace.request_id},
      {"method", request.method},
      {"route", request.trace.route},
      {"status", status},
      {"duration_ms", duration_ms},
      {"caller", request.trace.caller.empty() ? nlohmann::ordered_json(nullptr)
                                              : nlohmann::ordered_json(request.trace.caller)}};
  // A token's `sub` may hold anything: invalid UTF-8 is replaced rather than thrown on.
  const auto dump = [](const nlohmann::ordered_json& value) {
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  if (form_ == Form::kText) {
    std::string text;
    for (const auto& field : fields.items()) {
      const nlohmann::ordered_json& value = field.value();
      text += (text.empty() ? "" : " ") + field.key() + "=";
      text += value.is_string() && field.key() != "caller" ? value.get<std::string>()
              : value.is_null()                            ? std::string("-")
                                                           : dump(value);
    }
    logger_->log(level, spdlog::string_view_t(text));
    return;
  }
  const std::string object = dump(fields);
  logger_->log(level, spdlog::string_view_t(object.data() + 1, object.size() - 2));
}

std::unique_ptr<spdlog::formatter> RequestLog::MakeFormatter() {
  return std::make_unique<spdlog::pattern_formatter>(kRequestLogPattern,
                                                     spdlog::pattern_time_type::utc);
}

}  // namespace docgate
