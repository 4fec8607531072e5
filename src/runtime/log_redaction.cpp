#include "runtime/log_redaction.h"

#include <spdlog/sinks/sink.h>

#include <string_view>
#include <utility>

#include "runtime/config_table.h"

namespace docgate {

std::vector<std::string> SecretsOf(const Config& config) {
  Config copy = config;  // the table's accessors take a Config& to set fields
  std::vector<std::string> secrets;
  for (const ConfigVariable& variable : ConfigVariables()) {
    if (variable.type != ConfigType::kSecret && variable.type != ConfigType::kUrl) continue;
    const auto* field = std::get_if<ConfigFieldOf<std::string>>(&variable.field);
    if (field == nullptr) continue;
    const std::string& value = (*field)(copy);
    if (value.empty()) continue;
    if (variable.type == ConfigType::kSecret) {
      secrets.push_back(value);
    } else {
      for (std::string& password : PasswordsOf(value)) {
        if (!password.empty()) secrets.push_back(std::move(password));
      }
    }
  }
  return secrets;
}

RedactingFormatter::RedactingFormatter(std::unique_ptr<spdlog::formatter> inner,
                                       std::shared_ptr<const SecretPieces> secrets)
    : inner_(std::move(inner)), secrets_(std::move(secrets)) {}

void RedactingFormatter::format(const spdlog::details::log_msg& message,
                                spdlog::memory_buf_t& dest) {
  spdlog::memory_buf_t line;
  inner_->format(message, line);
  const std::string redacted = secrets_->Redact(std::string_view(line.data(), line.size()));
  dest.append(redacted.data(), redacted.data() + redacted.size());
}

std::unique_ptr<spdlog::formatter> RedactingFormatter::clone() const {
  return std::make_unique<RedactingFormatter>(inner_->clone(), secrets_);
}

void RedactLogLines(spdlog::logger& logger, std::vector<std::string> secrets, LogFormat format) {
  const auto pieces = std::make_shared<const SecretPieces>(std::move(secrets));
  for (const auto& sink : logger.sinks()) {
    sink->set_formatter(std::make_unique<LogLineFormatter>(format, pieces));
  }
}

}  // namespace docgate
