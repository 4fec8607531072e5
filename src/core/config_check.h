#pragma once

// The checks that the validators beside each component's settings struct share
// (ValidateRedisConfig, ValidateRelayConfig, ...). A validator returns why its settings cannot be
// used, as one line for the operator that names the setting, or nullopt when they can; the
// runtime's ValidateConfig turns the first problem into a ConfigError.

#include <chrono>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

namespace docgate {

// A settings struct's checks, run in the order written, keeping the first problem:
//   return ConfigCheck()
//       .Range("DOCGATE_DB_POOL_SIZE", pool_size, 1, 1024)
//       .Positive("DOCGATE_DB_BUSY_TIMEOUT_MS", busy_timeout)
//       .Problem();
// Later checks still run (all are cheap and side-effect free) but never replace the first problem.
class ConfigCheck {
 public:
  // "WHAT must be MIN..MAX, got VALUE" unless min <= value <= max.
  template <typename T>
  ConfigCheck& Range(std::string_view what, T value, T min, T max) {
    if (!problem_ && (value < min || value > max)) {
      std::ostringstream message;
      message << what << " must be " << min << ".." << max << ", got " << value;
      problem_ = message.str();
    }
    return *this;
  }

  // "WHAT must be a positive number of milliseconds, got VALUE" unless value > 0.
  ConfigCheck& Positive(std::string_view what, std::chrono::milliseconds value);

  // `message` unless `ok`.
  ConfigCheck& Require(bool ok, std::string message);

  // `problem` (e.g. another validator's result) when it holds one.
  ConfigCheck& Include(std::optional<std::string> problem);

  std::optional<std::string> Problem() const { return problem_; }

 private:
  std::optional<std::string> problem_;
};

}  // namespace docgate
