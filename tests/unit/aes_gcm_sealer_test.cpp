#include "adapters/crypto/aes_gcm_sealer.h"

#include <gtest/gtest.h>

#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/hex.h"

namespace docgate {
namespace {

std::string Hex(const std::string& bytes) {
  return LowerHex(std::span(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()));
}

constexpr std::string_view kKeyMaterial = "docgate-测试-key-material-of-32-bytes!";

// RFC 5869, appendix A.1 (test case 1).
TEST(AesGcmSealerTest, HkdfMatchesRfc5869) {
  std::string salt, info;
  for (int i = 0x00; i <= 0x0c; ++i) salt.push_back(static_cast<char>(i));
  for (int i = 0xf0; i <= 0xf9; ++i) info.push_back(static_cast<char>(i));
  EXPECT_EQ(Hex(HkdfSha256(std::string(22, '\x0b'), salt, info, 42)),
            "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865");
}

TEST(AesGcmSealerTest, ASealedSecretOpensUnderItsKeyOnly) {
  const AesGcmSealer sealer(kKeyMaterial);
  // The id as computed apart (Python's hmac, RFC 5869's two steps, info "... key id").
  EXPECT_EQ(sealer.KeyId(), "21c8960a39247984");
  const std::string secret = "whsec_飞书机器人的签名密钥";
  const std::string sealed = sealer.Seal(secret);
  EXPECT_TRUE(sealed.starts_with("v1.21c8960a39247984.")) << sealed;
  EXPECT_EQ(sealed.find("whsec"), std::string::npos);
  EXPECT_EQ(sealer.Open(sealed), secret);
  EXPECT_NE(sealer.Seal(secret), sealed);                      // a fresh nonce each time
  EXPECT_EQ(AesGcmSealer(kKeyMaterial).Open(sealed), secret);  // the same key, another instance
  EXPECT_EQ(sealer.Open(sealer.Seal("")), "");

  const AesGcmSealer other("another key material, also of 32 bytes or more");
  EXPECT_NE(other.KeyId(), sealer.KeyId());
  EXPECT_EQ(other.Open(sealed), std::nullopt);
  // Relabelled with the other key's id, it still does not open: the id is authenticated.
  std::string relabelled = sealed;
  relabelled.replace(3, 16, other.KeyId());
  EXPECT_EQ(other.Open(relabelled), std::nullopt);
}

TEST(AesGcmSealerTest, AnAlteredOrMalformedTextDoesNotOpen) {
  const AesGcmSealer sealer(kKeyMaterial);
  const std::string sealed = sealer.Seal("secret");
  for (std::size_t i = std::string("v1.").size() + 17; i < sealed.size(); ++i) {
    std::string altered = sealed;
    altered[i] = altered[i] == 'A' ? 'B' : 'A';
    EXPECT_EQ(sealer.Open(altered), std::nullopt) << "byte " << i;
  }
  for (const std::string& text : std::vector<std::string>{
           "", "v1.", "secret", "v1.21c8960a39247984.", "v1.21c8960a39247984.AAAA",
           "v2.21c8960a39247984." + sealed.substr(20)}) {
    EXPECT_EQ(sealer.Open(text), std::nullopt) << text;
  }
  EXPECT_EQ(sealer.Open(sealed.substr(0, sealed.size() - 1)), std::nullopt);
}

TEST(AesGcmSealerTest, ShortKeyMaterialIsRefused) {
  EXPECT_THROW(AesGcmSealer("only 31 bytes of key material.."), std::invalid_argument);
  EXPECT_NO_THROW(AesGcmSealer("exactly 32 bytes of key material"));
}

}  // namespace
}  // namespace docgate
