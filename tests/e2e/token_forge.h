#pragma once

// Hand-built JWT pieces for tests that must send tokens no honest signer produces (`alg: none`,
// foreign algorithms, tampered payloads). Header-only; used by the e2e suite and the JWT unit test.

#include <string>

namespace docgate::e2e {

// Base64url without padding (RFC 7515).
inline std::string Base64Url(const std::string& bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  unsigned value = 0;
  int bits = 0;
  for (const unsigned char c : bytes) {
    value = (value << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += kAlphabet[(value >> bits) & 63];
    }
  }
  if (bits > 0) out += kAlphabet[(value << (6 - bits)) & 63];
  return out;
}

// "<b64url(header)>.<b64url(claims)>" — the signing input; append "." + signature (or nothing).
inline std::string SigningInput(const std::string& header_json, const std::string& claims_json) {
  return Base64Url(header_json) + "." + Base64Url(claims_json);
}

}  // namespace docgate::e2e
