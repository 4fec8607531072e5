#pragma once

// Hand-built JWT pieces for tests that must send tokens no honest signer produces (`alg: none`,
// foreign algorithms, tampered payloads, claims SignHs256Token refuses). Header-only; used by the
// e2e suite and the JWT unit test. The signature is OpenSSL's HMAC, independent of libjwt.

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <string>

#include "core/base64url.h"

namespace docgate::e2e {

// Base64url without padding (RFC 7515): docgate's own encoder (core/base64url.h).
inline std::string Base64Url(const std::string& bytes) { return EncodeBase64Url(bytes); }

// "<b64url(header)>.<b64url(claims)>" — the signing input; append "." + signature (or nothing).
inline std::string SigningInput(const std::string& header_json, const std::string& claims_json) {
  return Base64Url(header_json) + "." + Base64Url(claims_json);
}

// The signing input followed by "." and its HMAC with `md` under `secret` (HS256 by default).
inline std::string Hs256SignedByHand(const std::string& header_json,
                                     const std::string& claims_json, const std::string& secret,
                                     const EVP_MD* md = EVP_sha256()) {
  const std::string input = SigningInput(header_json, claims_json);
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(md, secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(input.data()), input.size(), mac, &length);
  return input + "." + Base64Url(std::string(reinterpret_cast<char*>(mac), length));
}

}  // namespace docgate::e2e
