#include "app/webhook_signature.h"

#include <gtest/gtest.h>

#include <string>

#include "adapters/crypto/openssl_digest.h"

namespace docgate {
namespace {

// The expected values were computed apart from docgate, with Python 3's hmac, hashlib and base64
// modules following each scheme's document as its header comment states, e.g. for DingTalk:
//   base64.b64encode(hmac.new(secret, f"{ms}\n{secret}".encode(), hashlib.sha256).digest())
class WebhookSignatureTest : public ::testing::Test {
 protected:
  OpenSslDigest digest_;
};

TEST_F(WebhookSignatureTest, GenericSignsTheTimestampAndTheRawBody) {
  const std::string body =
      "{\"event_id\":\"e1\",\"type\":\"document.approved\",\"title\":\"\u6570\u636e\u5e93"
      "\u5907\u4efd\u4e0e\u6062\u590d\u89c4\u8303\"}";  // 数据库备份与恢复规范
  EXPECT_EQ(GenericWebhookSignature(digest_, "whsec_\u6d4b\u8bd5\u5bc6\u94a5", 1796000000, body),
            "sha256=2516748faa526698f169451d1d4471aa6c5f4c6fa9a270f813faaa97fae62f6a");
  // One byte of the body, or a second of the timestamp, changes it.
  EXPECT_NE(
      GenericWebhookSignature(digest_, "whsec_\u6d4b\u8bd5\u5bc6\u94a5", 1796000000, body + " "),
      GenericWebhookSignature(digest_, "whsec_\u6d4b\u8bd5\u5bc6\u94a5", 1796000000, body));
  EXPECT_NE(GenericWebhookSignature(digest_, "whsec_\u6d4b\u8bd5\u5bc6\u94a5", 1796000001, body),
            GenericWebhookSignature(digest_, "whsec_\u6d4b\u8bd5\u5bc6\u94a5", 1796000000, body));
}

TEST_F(WebhookSignatureTest, DingTalkSignsMillisecondsAndTheSecretUnderTheSecret) {
  EXPECT_EQ(DingTalkSign(digest_, "SEC0123456789abcdef", 1796000000123),
            "+5gqcy414pd22p3WTYeKrVksXxs2k788f2gceG4WdRQ=");
  EXPECT_EQ(DingTalkSign(digest_, "this is secret", 1577262236757),
            "hmPWwU+7lVdm3ZZz0r9tSfx0L4Q26jWOZr9+Gs6EZQM=");
}

TEST_F(WebhookSignatureTest, FeishuSignsNothingUnderTheSecondsAndTheSecret) {
  EXPECT_EQ(FeishuSign(digest_, "demo-secret-\u98de\u4e66", 1796000000),
            "Qqb9Jn0gt2KmaI1nC+l1R1BRrAREqmz1tU3kRpPqKew=");
}

}  // namespace
}  // namespace docgate
