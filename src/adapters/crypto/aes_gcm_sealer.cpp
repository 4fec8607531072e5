#include "adapters/crypto/aes_gcm_sealer.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include <memory>
#include <span>
#include <stdexcept>

#include "core/base64url.h"
#include "core/hex.h"

namespace docgate {
namespace {

constexpr std::size_t kKeyBytes = 32;
constexpr std::size_t kNonceBytes = 12;
constexpr std::size_t kTagBytes = 16;
constexpr std::string_view kVersion = "v1";

using CipherContext = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

unsigned char* Bytes(std::string& s) { return reinterpret_cast<unsigned char*>(s.data()); }
const unsigned char* Bytes(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

CipherContext NewCipher(bool encrypt, const std::string& key, std::string_view nonce,
                        std::string_view associated) {
  CipherContext ctx(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
  int ignored = 0;
  const auto init = encrypt ? &EVP_EncryptInit_ex : &EVP_DecryptInit_ex;
  const auto update = encrypt ? &EVP_EncryptUpdate : &EVP_DecryptUpdate;
  if (!ctx || init(ctx.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IVLEN, kNonceBytes, nullptr) != 1 ||
      init(ctx.get(), nullptr, nullptr, Bytes(std::string_view(key)), Bytes(nonce)) != 1 ||
      update(ctx.get(), nullptr, &ignored, Bytes(associated),
             static_cast<int>(associated.size())) != 1) {
    return CipherContext(nullptr, &EVP_CIPHER_CTX_free);
  }
  return ctx;
}

}  // namespace

std::string HkdfSha256(std::string_view key_material, std::string_view salt, std::string_view info,
                       std::size_t length) {
  std::unique_ptr<EVP_KDF, decltype(&EVP_KDF_free)> kdf(EVP_KDF_fetch(nullptr, "HKDF", nullptr),
                                                        &EVP_KDF_free);
  std::unique_ptr<EVP_KDF_CTX, decltype(&EVP_KDF_CTX_free)> ctx(
      kdf ? EVP_KDF_CTX_new(kdf.get()) : nullptr, &EVP_KDF_CTX_free);
  // OSSL_PARAM takes non-const pointers; OpenSSL only reads them.
  std::string digest = "SHA256", key(key_material), salt_bytes(salt), info_bytes(info);
  const OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest.data(), 0),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, key.data(), key.size()),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, salt_bytes.data(), salt_bytes.size()),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, info_bytes.data(), info_bytes.size()),
      OSSL_PARAM_construct_end()};
  std::string out(length, '\0');
  if (!ctx || EVP_KDF_derive(ctx.get(), Bytes(out), out.size(), params) != 1) {
    throw std::runtime_error("OpenSSL HKDF-SHA256 failed");
  }
  return out;
}

AesGcmSealer::AesGcmSealer(std::string_view key_material) {
  if (key_material.size() < kKeyBytes) {
    throw std::invalid_argument("the key material to seal secrets with must be at least 32 bytes");
  }
  key_ = HkdfSha256(key_material, "docgate", "docgate secret sealer v1", kKeyBytes);
  const std::string id = HkdfSha256(key_material, "docgate", "docgate secret sealer v1 key id", 8);
  key_id_ = LowerHex(std::span(Bytes(std::string_view(id)), id.size()));
}

std::string AesGcmSealer::Seal(std::string_view plaintext) const {
  std::string nonce(kNonceBytes, '\0');
  if (RAND_bytes(Bytes(nonce), static_cast<int>(nonce.size())) != 1) {
    throw std::runtime_error("OpenSSL RAND_bytes failed");
  }
  const CipherContext ctx = NewCipher(/*encrypt=*/true, key_, nonce, key_id_);
  std::string sealed = nonce + std::string(plaintext.size(), '\0') + std::string(kTagBytes, '\0');
  int written = 0, final_written = 0;
  if (!ctx ||
      EVP_EncryptUpdate(ctx.get(), Bytes(sealed) + kNonceBytes, &written, Bytes(plaintext),
                        static_cast<int>(plaintext.size())) != 1 ||
      EVP_EncryptFinal_ex(ctx.get(), Bytes(sealed) + kNonceBytes + written, &final_written) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, kTagBytes,
                          Bytes(sealed) + kNonceBytes + plaintext.size()) != 1) {
    throw std::runtime_error("OpenSSL AES-256-GCM encryption failed");
  }
  return std::string(kVersion) + "." + key_id_ + "." + EncodeBase64Url(sealed);
}

std::optional<std::string> AesGcmSealer::Open(std::string_view sealed) const {
  const std::string prefix = std::string(kVersion) + "." + key_id_ + ".";
  if (!sealed.starts_with(prefix)) return std::nullopt;
  const std::optional<std::string> bytes = DecodeBase64Url(sealed.substr(prefix.size()));
  if (!bytes || bytes->size() < kNonceBytes + kTagBytes) return std::nullopt;
  const std::string_view all(*bytes);
  const std::string_view nonce = all.substr(0, kNonceBytes);
  const std::string_view ciphertext = all.substr(kNonceBytes, all.size() - kNonceBytes - kTagBytes);
  std::string tag(all.substr(all.size() - kTagBytes));
  const CipherContext ctx = NewCipher(/*encrypt=*/false, key_, nonce, key_id_);
  std::string plaintext(ciphertext.size(), '\0');
  int written = 0, final_written = 0;
  if (!ctx ||
      EVP_DecryptUpdate(ctx.get(), Bytes(plaintext), &written, Bytes(ciphertext),
                        static_cast<int>(ciphertext.size())) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, kTagBytes, tag.data()) != 1 ||
      EVP_DecryptFinal_ex(ctx.get(), Bytes(plaintext) + written, &final_written) != 1) {
    return std::nullopt;
  }
  return plaintext;
}

}  // namespace docgate
