#pragma once

// One log format per process (DOCGATE_LOG_FORMAT): every line docgate logs, from the start-up
// lines to the request log, is either one JSON object (`json`) or readable text (`text`).

#include <spdlog/formatter.h>
#include <spdlog/pattern_formatter.h>

#include <memory>
#include <string_view>

#include "core/redact.h"

namespace docgate {

enum class LogFormat { kText, kJson };

// The format DOCGATE_LOG_FORMAT's value `setting` names ("json" or "text"); any other, unset
// included: text when stderr is a terminal, json otherwise.
LogFormat LogFormatOf(std::string_view setting);

// Writes a line of the process's log, with every piece of `secrets` (may be null: none) in the
// message replaced by "***" before it is written:
// - kJson: {"time":"2026-12-06T19:23:43.120Z","level":"info","message":"..."}, the time in UTC
//   with milliseconds, the message escaped by nlohmann::json (bytes that are not UTF-8 replaced
//   by U+FFFD), so that the line is one JSON object whatever the message holds;
// - kText: [2026-12-06T19:23:43.120Z] [info] message, the message as written.
// A formatter is not thread-safe; each sink has its own (clone).
class LogLineFormatter final : public spdlog::formatter {
 public:
  LogLineFormatter(LogFormat format, std::shared_ptr<const SecretPieces> secrets);
  void format(const spdlog::details::log_msg& message, spdlog::memory_buf_t& dest) override;
  std::unique_ptr<spdlog::formatter> clone() const override;

 private:
  LogFormat format_;
  std::shared_ptr<const SecretPieces> secrets_;
  spdlog::pattern_formatter time_;
};

}  // namespace docgate
