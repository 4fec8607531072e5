#include "app/embedding_text_key.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "adapters/crypto/openssl_digest.h"
#include "core/vector_bytes.h"

namespace docgate {
namespace {

TEST(OpenSslDigestTest, Sha256HexMatchesTheStandardsTestVectors) {
  const OpenSslDigest digest;
  EXPECT_EQ(digest.Sha256Hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(digest.Sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(digest.Sha256Hex(std::string("a\0b", 3)).size(), 64u) << "bytes, not a C string";
  EXPECT_NE(digest.Sha256Hex(std::string("a\0b", 3)), digest.Sha256Hex("a"));
}

TEST(EmbeddingTextKeyTest, TextsThatNormaliseAlikeShareAKey) {
  const OpenSslDigest digest;
  const std::string composed = "caf\u00e9 审核";     // é as one code point
  const std::string decomposed = "cafe\u0301 审核";  // e + combining acute accent
  ASSERT_NE(composed, decomposed);
  EXPECT_EQ(EmbeddingTextKey(digest, composed), EmbeddingTextKey(digest, decomposed));
  EXPECT_EQ(EmbeddingTextKey(digest, composed), digest.Sha256Hex(composed)) << "NFC is the form";
  EXPECT_EQ(EmbeddingTextKey(digest, "审核通过后建立索引。"),
            digest.Sha256Hex("审核通过后建立索引。"));
  EXPECT_NE(EmbeddingTextKey(digest, "审核"), EmbeddingTextKey(digest, "审 核"));
  // NFC, not NFKC: full-width letters stay themselves (the model may read them differently).
  EXPECT_NE(EmbeddingTextKey(digest, "Ｒｅｄｉｓ"), EmbeddingTextKey(digest, "Redis"));
}

TEST(EmbeddingTextKeyTest, IllFormedUtf8IsHashedAsItIs) {
  const OpenSslDigest digest;
  const std::string broken_one = "abc\xff";
  const std::string broken_two = "abc\xfe";
  EXPECT_EQ(EmbeddingTextKey(digest, broken_one), digest.Sha256Hex(broken_one));
  EXPECT_NE(EmbeddingTextKey(digest, broken_one), EmbeddingTextKey(digest, broken_two))
      << "never one key for two texts ICU would both read as U+FFFD";
}

TEST(VectorBytesTest, FloatsRoundTripAsLittleEndianBinary32) {
  const std::vector<float> vector = {1.0f, -0.0f, 1e-30f, -3.5f};
  const std::string bytes = VectorToBytes(vector);
  ASSERT_EQ(bytes.size(), 16u);
  EXPECT_EQ(bytes.substr(0, 4), std::string("\x00\x00\x80\x3f", 4)) << "1.0f, low byte first";
  const auto back = VectorFromBytes(bytes, 4);
  ASSERT_TRUE(back);
  ASSERT_EQ(back->size(), 4u);
  for (std::size_t i = 0; i < vector.size(); ++i) {
    EXPECT_EQ(std::bit_cast<std::uint32_t>((*back)[i]), std::bit_cast<std::uint32_t>(vector[i]));
  }
  EXPECT_FALSE(VectorFromBytes(bytes, 3)) << "the wrong length is refused";
  EXPECT_FALSE(VectorFromBytes(bytes.substr(1), 4));
}

}  // namespace
}  // namespace docgate
