#pragma once

// Signing keys of a test's OpenID issuer, made with OpenSSL: the private half signs compact JWS
// (RS256, ES256 as r || s), the public half is published as a JWK. Header-only; used by the OIDC
// unit tests and bench/token_verify_bench.

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "core/base64url.h"

namespace docgate {

struct PkeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;

// A signing key of the test's issuer: its private half signs, its JWK is published.
struct IssuerKey {
  std::string kid;
  std::string alg;  // RS256 or ES256
  Pkey pkey;

  nlohmann::json Jwk() const {
    nlohmann::json jwk{{"kid", kid}, {"use", "sig"}, {"alg", alg}};
    if (alg == "RS256") {
      jwk["kty"] = "RSA";
      jwk["n"] = BigNumParam(OSSL_PKEY_PARAM_RSA_N);
      jwk["e"] = BigNumParam(OSSL_PKEY_PARAM_RSA_E);
    } else {
      unsigned char point[65];
      std::size_t length = 0;
      EVP_PKEY_get_octet_string_param(pkey.get(), OSSL_PKEY_PARAM_PUB_KEY, point, sizeof point,
                                      &length);
      if (length != sizeof point) throw std::runtime_error("not an uncompressed P-256 point");
      const std::string bytes(reinterpret_cast<const char*>(point), length);
      jwk["kty"] = "EC";
      jwk["crv"] = "P-256";
      jwk["x"] = EncodeBase64Url(bytes.substr(1, 32));
      jwk["y"] = EncodeBase64Url(bytes.substr(33, 32));
    }
    return jwk;
  }

  std::string BigNumParam(const char* name) const {
    BIGNUM* number = nullptr;
    EVP_PKEY_get_bn_param(pkey.get(), name, &number);
    std::string bytes(static_cast<std::size_t>(BN_num_bytes(number)), '\0');
    BN_bn2bin(number, reinterpret_cast<unsigned char*>(bytes.data()));
    BN_free(number);
    return EncodeBase64Url(bytes);
  }

  std::string PublicPem() const {
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_PUBKEY(bio, pkey.get());
    char* data = nullptr;
    const long size = BIO_get_mem_data(bio, &data);
    std::string pem(data, static_cast<std::size_t>(size));
    BIO_free(bio);
    return pem;
  }

  // The JWS signature of `input` with this key, as JWS writes it (ES256: r || s).
  std::string Sign(const std::string& input) const {
    EVP_MD_CTX* context = EVP_MD_CTX_new();
    EVP_DigestSignInit(context, nullptr, EVP_sha256(), nullptr, pkey.get());
    std::size_t length = 0;
    EVP_DigestSign(context, nullptr, &length, reinterpret_cast<const unsigned char*>(input.data()),
                   input.size());
    std::string signature(length, '\0');
    EVP_DigestSign(context, reinterpret_cast<unsigned char*>(signature.data()), &length,
                   reinterpret_cast<const unsigned char*>(input.data()), input.size());
    EVP_MD_CTX_free(context);
    signature.resize(length);
    if (alg == "RS256") return signature;
    const auto* der = reinterpret_cast<const unsigned char*>(signature.data());
    ECDSA_SIG* sig = d2i_ECDSA_SIG(nullptr, &der, static_cast<long>(signature.size()));
    std::string raw(64, '\0');
    BN_bn2binpad(ECDSA_SIG_get0_r(sig), reinterpret_cast<unsigned char*>(raw.data()), 32);
    BN_bn2binpad(ECDSA_SIG_get0_s(sig), reinterpret_cast<unsigned char*>(raw.data()) + 32, 32);
    ECDSA_SIG_free(sig);
    return raw;
  }
};

inline IssuerKey RsaKey(std::string kid, unsigned bits = 2048) {
  return {std::move(kid), "RS256", Pkey(EVP_RSA_gen(bits))};
}
inline IssuerKey EcKey(std::string kid) {
  return {std::move(kid), "ES256", Pkey(EVP_EC_gen("P-256"))};
}

inline std::string Compact(const nlohmann::json& header, const nlohmann::json& claims,
                           const IssuerKey& key) {
  const std::string input = EncodeBase64Url(header.dump()) + "." + EncodeBase64Url(claims.dump());
  return input + "." + EncodeBase64Url(key.Sign(input));
}

}  // namespace docgate
