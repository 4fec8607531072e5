#pragma once

#include "app/ports/random_source.h"

namespace docgate {

// RandomSource backed by OpenSSL's CSPRNG (RAND_bytes). Thread-safe. Throws std::runtime_error
// if the generator cannot produce bytes (an unseeded system), which is not recoverable.
class OpenSslRandom final : public RandomSource {
 public:
  std::string Token128() override;
  std::string Uuid() override;
};

}  // namespace docgate
