#include "adapters/oidc/json_web_key.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/base64url.h"

namespace docgate {

struct JsonWebKey::PublicKey {
  explicit PublicKey(EVP_PKEY* key) : pkey(key) {}
  ~PublicKey() { EVP_PKEY_free(pkey); }
  PublicKey(const PublicKey&) = delete;
  PublicKey& operator=(const PublicKey&) = delete;

  EVP_PKEY* pkey;
};

namespace {

using nlohmann::json;

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using BigNum = std::unique_ptr<BIGNUM, Deleter<BIGNUM, BN_free>>;
using ParamBuilder = std::unique_ptr<OSSL_PARAM_BLD, Deleter<OSSL_PARAM_BLD, OSSL_PARAM_BLD_free>>;
using Params = std::unique_ptr<OSSL_PARAM, Deleter<OSSL_PARAM, OSSL_PARAM_free>>;
using PkeyContext = std::unique_ptr<EVP_PKEY_CTX, Deleter<EVP_PKEY_CTX, EVP_PKEY_CTX_free>>;
using DigestContext = std::unique_ptr<EVP_MD_CTX, Deleter<EVP_MD_CTX, EVP_MD_CTX_free>>;
using EcdsaSignature = std::unique_ptr<ECDSA_SIG, Deleter<ECDSA_SIG, ECDSA_SIG_free>>;

constexpr int kMinRsaBits = 2048;
constexpr std::size_t kP256CoordinateBytes = 32;

std::string Member(const json& key, const char* name, std::string_view kid) {
  const auto it = key.find(name);
  if (it == key.end() || !it->is_string()) {
    throw std::invalid_argument("key \"" + std::string(kid) + "\" has no string `" + name + "`");
  }
  const std::optional<std::string> bytes = DecodeBase64Url(it->get_ref<const std::string&>());
  if (!bytes || bytes->empty()) {
    throw std::invalid_argument("key \"" + std::string(kid) + "\": `" + name +
                                "` is not base64url");
  }
  return *bytes;
}

BigNum ToBigNum(const std::string& bytes) {
  BigNum number(BN_bin2bn(reinterpret_cast<const unsigned char*>(bytes.data()),
                          static_cast<int>(bytes.size()), nullptr));
  if (!number) throw std::runtime_error("out of memory");
  return number;
}

std::shared_ptr<const JsonWebKey::PublicKey> FromParams(const char* type, OSSL_PARAM_BLD* builder,
                                                        std::string_view kid) {
  Params params(OSSL_PARAM_BLD_to_param(builder));
  PkeyContext context(EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr));
  EVP_PKEY* pkey = nullptr;
  if (!params || !context || EVP_PKEY_fromdata_init(context.get()) != 1 ||
      EVP_PKEY_fromdata(context.get(), &pkey, EVP_PKEY_PUBLIC_KEY, params.get()) != 1) {
    throw std::invalid_argument("key \"" + std::string(kid) + "\" is not a valid " + type +
                                " public key");
  }
  auto key = std::make_shared<const JsonWebKey::PublicKey>(pkey);
  PkeyContext check(EVP_PKEY_CTX_new_from_pkey(nullptr, pkey, nullptr));
  if (!check || EVP_PKEY_public_check(check.get()) != 1) {
    throw std::invalid_argument("key \"" + std::string(kid) + "\" is not a valid " + type +
                                " public key");
  }
  return key;
}

std::shared_ptr<const JsonWebKey::PublicKey> RsaKey(const json& key, std::string_view kid) {
  const BigNum modulus = ToBigNum(Member(key, "n", kid));
  const BigNum exponent = ToBigNum(Member(key, "e", kid));
  if (BN_num_bits(modulus.get()) < kMinRsaBits) return nullptr;
  ParamBuilder builder(OSSL_PARAM_BLD_new());
  if (!builder ||
      OSSL_PARAM_BLD_push_BN(builder.get(), OSSL_PKEY_PARAM_RSA_N, modulus.get()) != 1 ||
      OSSL_PARAM_BLD_push_BN(builder.get(), OSSL_PKEY_PARAM_RSA_E, exponent.get()) != 1) {
    throw std::runtime_error("out of memory");
  }
  return FromParams("RSA", builder.get(), kid);
}

std::shared_ptr<const JsonWebKey::PublicKey> P256Key(const json& key, std::string_view kid) {
  const std::string x = Member(key, "x", kid);
  const std::string y = Member(key, "y", kid);
  if (x.size() != kP256CoordinateBytes || y.size() != kP256CoordinateBytes) {
    throw std::invalid_argument("key \"" + std::string(kid) +
                                "\": a P-256 coordinate must be 32 bytes");
  }
  const std::string point = "\x04" + x + y;  // uncompressed SEC 1 encoding
  ParamBuilder builder(OSSL_PARAM_BLD_new());
  if (!builder ||
      OSSL_PARAM_BLD_push_utf8_string(builder.get(), OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) !=
          1 ||
      OSSL_PARAM_BLD_push_octet_string(builder.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(),
                                       point.size()) != 1) {
    throw std::runtime_error("out of memory");
  }
  return FromParams("EC", builder.get(), kid);
}

std::string OptionalString(const json& key, const char* name) {
  const auto it = key.find(name);
  if (it == key.end()) return {};
  if (!it->is_string())
    throw std::invalid_argument(std::string("a key's `") + name + "` is not a string");
  return it->get<std::string>();
}

// ES256's r || s as the DER ECDSA-Sig-Value OpenSSL verifies; empty when it is not 64 bytes.
std::string EcdsaDer(std::string_view signature) {
  if (signature.size() != 2 * kP256CoordinateBytes) return {};
  const auto* bytes = reinterpret_cast<const unsigned char*>(signature.data());
  EcdsaSignature sig(ECDSA_SIG_new());
  BIGNUM* r = BN_bin2bn(bytes, kP256CoordinateBytes, nullptr);
  BIGNUM* s = BN_bin2bn(bytes + kP256CoordinateBytes, kP256CoordinateBytes, nullptr);
  if (!sig || !r || !s || ECDSA_SIG_set0(sig.get(), r, s) != 1) {
    BN_free(r);
    BN_free(s);
    return {};
  }
  const int length = i2d_ECDSA_SIG(sig.get(), nullptr);
  if (length <= 0) return {};
  std::string der(static_cast<std::size_t>(length), '\0');
  auto* out = reinterpret_cast<unsigned char*>(der.data());
  if (i2d_ECDSA_SIG(sig.get(), &out) != length) return {};
  return der;
}

}  // namespace

JsonWebKey::JsonWebKey(std::string kid, std::string algorithm, std::shared_ptr<const PublicKey> key)
    : kid_(std::move(kid)), algorithm_(std::move(algorithm)), key_(std::move(key)) {}

bool JsonWebKey::Verifies(std::string_view signing_input, std::string_view signature) const {
  std::string der;
  if (algorithm_ == "ES256") {
    der = EcdsaDer(signature);
    if (der.empty()) return false;
    signature = der;
  }
  DigestContext context(EVP_MD_CTX_new());
  if (!context ||
      EVP_DigestVerifyInit(context.get(), nullptr, EVP_sha256(), nullptr, key_->pkey) != 1) {
    return false;
  }
  return EVP_DigestVerify(context.get(), reinterpret_cast<const unsigned char*>(signature.data()),
                          signature.size(),
                          reinterpret_cast<const unsigned char*>(signing_input.data()),
                          signing_input.size()) == 1;
}

std::vector<JsonWebKey> ParseJsonWebKeySet(std::string_view text) {
  const json set = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!set.is_object()) throw std::invalid_argument("the key set is not a JSON object");
  const auto keys = set.find("keys");
  if (keys == set.end() || !keys->is_array()) {
    throw std::invalid_argument("the key set has no `keys` array");
  }
  std::vector<JsonWebKey> usable;
  for (const json& key : *keys) {
    if (!key.is_object()) throw std::invalid_argument("a key of the set is not a JSON object");
    const std::string kty = OptionalString(key, "kty");
    const std::string use = OptionalString(key, "use");
    const std::string alg = OptionalString(key, "alg");
    const std::string kid = OptionalString(key, "kid");
    if (!use.empty() && use != "sig") continue;
    if (kty == "RSA" && (alg.empty() || alg == "RS256")) {
      if (auto public_key = RsaKey(key, kid)) usable.emplace_back(kid, "RS256", public_key);
    } else if (kty == "EC" && OptionalString(key, "crv") == "P-256" &&
               (alg.empty() || alg == "ES256")) {
      usable.emplace_back(kid, "ES256", P256Key(key, kid));
    }
  }
  return usable;
}

}  // namespace docgate
