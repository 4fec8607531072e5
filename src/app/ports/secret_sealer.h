#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace docgate {

// Keeps secrets that docgate must read again (a webhook's signing secret: HMAC needs it, so it
// cannot be hashed) unreadable at rest. A port so that app/ includes no crypto library.
// Implementations are thread-safe.
class SecretSealer {
 public:
  virtual ~SecretSealer() = default;
  // `plaintext` encrypted and authenticated under this sealer's key, as printable ASCII that
  // names the key (KeyId) and differs at every call (a fresh nonce).
  virtual std::string Seal(std::string_view plaintext) const = 0;
  // The plaintext of what Seal wrote under this key; nullopt for a text sealed under another key,
  // altered, or not a sealed text at all. Never throws for any input.
  virtual std::optional<std::string> Open(std::string_view sealed) const = 0;
  // A short printable id of the key, the same for the same key material: which key a stored
  // text needs, without revealing the key.
  virtual std::string KeyId() const = 0;
};

}  // namespace docgate
