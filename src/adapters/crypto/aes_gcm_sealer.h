#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "app/ports/secret_sealer.h"

namespace docgate {

// HKDF-SHA256 (RFC 5869) of `key_material` with `salt` and `info`, `length` bytes (at most
// 255 x 32). Throws std::runtime_error when OpenSSL fails.
std::string HkdfSha256(std::string_view key_material, std::string_view salt, std::string_view info,
                       std::size_t length);

// SecretSealer by AES-256-GCM (OpenSSL EVP): the key is HKDF-SHA256 of the given key material
// (info "docgate secret sealer v1"), so any secret of 32 bytes or more (DOCGATE_JWT_SECRET, or a
// key of its own) serves. A sealed text is "v1.<key id>.<base64url of nonce (12 bytes),
// ciphertext and tag (16 bytes)>"; the key id (8 bytes of another HKDF output, as hex) is bound
// into the tag as additional data, so a text cannot be moved under another id. ADR 0017.
class AesGcmSealer final : public SecretSealer {
 public:
  // Throws std::invalid_argument for key material shorter than 32 bytes.
  explicit AesGcmSealer(std::string_view key_material);

  std::string Seal(std::string_view plaintext) const override;
  std::optional<std::string> Open(std::string_view sealed) const override;
  std::string KeyId() const override { return key_id_; }

 private:
  std::string key_;     // 32 bytes
  std::string key_id_;  // 16 hex characters
};

}  // namespace docgate
