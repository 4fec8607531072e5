#pragma once

#include <string>

namespace docgate {

// Unpredictable identifiers. Implementations are thread-safe and cryptographically strong: lock
// tokens must not be guessable by another client.
class RandomSource {
 public:
  virtual ~RandomSource() = default;
  // 128 random bits as 32 lowercase hex characters (lock owner tokens).
  virtual std::string Token128() = 0;
  // A random (version 4) UUID in canonical 8-4-4-4-12 form (event ids).
  virtual std::string Uuid() = 0;
};

}  // namespace docgate
