#pragma once

#include <atomic>
#include <cstdio>
#include <string>

#include "app/ports/random_source.h"

namespace docgate {

// Deterministic, unique values in the real formats (32 hex chars; 8-4-4-4-12 UUID). Thread-safe.
class FakeRandom final : public RandomSource {
 public:
  std::string Token128() override {
    char buf[33];
    std::snprintf(buf, sizeof buf, "%032llx", static_cast<unsigned long long>(++counter_));
    return buf;
  }
  std::string Uuid() override {
    char buf[37];
    std::snprintf(buf, sizeof buf, "00000000-0000-4000-8000-%012llx",
                  static_cast<unsigned long long>(++counter_));
    return buf;
  }

 private:
  std::atomic<unsigned long long> counter_{0};
};

}  // namespace docgate
