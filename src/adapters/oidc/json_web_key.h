#pragma once

// The keys an OpenID issuer publishes (a JWK Set, RFC 7517/7518) and the JWS signatures they
// verify: RS256 (RSASSA-PKCS1-v1_5, SHA-256, RSA of 2048 bits or more) and ES256 (ECDSA on P-256
// with SHA-256, the signature as r || s). OpenSSL does the arithmetic.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace docgate {

class JsonWebKey {
 public:
  // An opaque public key (OpenSSL's); shared by the copies of a key set.
  struct PublicKey;

  JsonWebKey(std::string kid, std::string algorithm, std::shared_ptr<const PublicKey> key);

  const std::string& kid() const { return kid_; }
  // "RS256" or "ES256": the one algorithm this key verifies (its `alg`, or what its type implies).
  const std::string& algorithm() const { return algorithm_; }

  // Whether `signature` (decoded from the JWS) signs `signing_input` (header.payload, as sent)
  // under algorithm(). Never throws.
  bool Verifies(std::string_view signing_input, std::string_view signature) const;

 private:
  std::string kid_;
  std::string algorithm_;
  std::shared_ptr<const PublicKey> key_;
};

// The signing keys of a JWK Set. Keys docgate cannot verify with are left out, not refused: an
// issuer publishes encryption keys, other algorithms and key types beside its signing keys (`use`
// other than "sig", `kty` other than RSA and EC on P-256, `alg` other than RS256 and ES256, RSA
// under 2048 bits). Throws std::invalid_argument, saying what is wrong, when `json` is not a JWK
// Set or a usable-looking key is malformed (bad base64url, a point not on the curve).
std::vector<JsonWebKey> ParseJsonWebKeySet(std::string_view json);

}  // namespace docgate
