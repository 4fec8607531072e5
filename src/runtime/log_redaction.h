#pragma once

// No secret of the configuration reaches a log line, whole or in part: the formatter of docgate's
// logger passes every line through SecretPieces (core/redact.h) of the configuration's secrets.
// Messages that quote a library or a peer (a driver's error, a provider's answer) may carry what
// they were given; this is the last net under the redaction each adapter does itself.

#include <memory>
#include <string>
#include <vector>

#include <spdlog/formatter.h>
#include <spdlog/logger.h>

#include "core/redact.h"
#include "runtime/config.h"
#include "runtime/log_line_formatter.h"

namespace docgate {

// The secrets of `config`, by the config table: the value of every kSecret variable (the JWT
// secret, the embeddings API key, ...) and the passwords of every kUrl one (database, Redis,
// RabbitMQ, MongoDB), as written and percent-decoded. Empty values are left out.
std::vector<std::string> SecretsOf(const Config& config);

// Writes what `inner` writes, with every piece of the secrets replaced by "***".
class RedactingFormatter final : public spdlog::formatter {
 public:
  RedactingFormatter(std::unique_ptr<spdlog::formatter> inner,
                     std::shared_ptr<const SecretPieces> secrets);
  void format(const spdlog::details::log_msg& message, spdlog::memory_buf_t& dest) override;
  std::unique_ptr<spdlog::formatter> clone() const override;

 private:
  std::unique_ptr<spdlog::formatter> inner_;
  std::shared_ptr<const SecretPieces> secrets_;
};

// Gives every sink of `logger` a LogLineFormatter of `format` that hides `secrets`.
void RedactLogLines(spdlog::logger& logger, std::vector<std::string> secrets, LogFormat format);

}  // namespace docgate
