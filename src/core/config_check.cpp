#include "core/config_check.h"

#include <utility>

namespace docgate {

ConfigCheck& ConfigCheck::Positive(std::string_view what, std::chrono::milliseconds value) {
  if (!problem_ && value.count() <= 0) {
    problem_ = std::string(what) + " must be a positive number of milliseconds, got " +
               std::to_string(value.count());
  }
  return *this;
}

ConfigCheck& ConfigCheck::Require(bool ok, std::string message) {
  if (!problem_ && !ok) problem_ = std::move(message);
  return *this;
}

ConfigCheck& ConfigCheck::Include(std::optional<std::string> problem) {
  if (!problem_) problem_ = std::move(problem);
  return *this;
}

}  // namespace docgate
