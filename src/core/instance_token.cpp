#include "core/instance_token.h"

#include <random>

namespace docgate {

std::string NewInstanceToken() {
  std::random_device device;
  std::uniform_int_distribution<unsigned> nibble(0, 15);
  std::string token(32, '0');
  for (char& c : token) c = "0123456789abcdef"[nibble(device)];
  return token;
}

}  // namespace docgate
