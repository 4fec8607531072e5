#include "adapters/web/webhook_sender.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "adapters/crypto/openssl_digest.h"
#include "app/webhook_signature.h"
#include "core/hex.h"
#include "core/percent_encoding.h"
#include "support/webhook_test_receiver.h"

namespace docgate {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::ScriptedAnswer;
using testing::WebhookTestReceiver;

const TimePoint kNow{milliseconds(1'796'000'000'123)};
const std::string kEventBody =
    R"({"event_id":"7f7e0c2e-9d7a-4d0c-9a8e-3c1d2b4a5e6f","type":"document.approved",)"
    R"("document_id":"17","review_id":"40","version":3,"actor_id":"bob","occurred_at":"2026-12-07T20:00:00.000Z"})";

class WebhookSenderTest : public ::testing::Test {
 protected:
  WebhookEnvelope Generic(const std::string& url) const {
    return {.format = WebhookFormat::kGeneric,
            .url = url,
            .secret = "whsec_测试",
            .delivery_id = "d-1001",
            .event_type = "document.approved",
            .event_body = kEventBody};
  }
  WebhookEnvelope Chat(WebhookFormat format, const std::string& url,
                       const std::string& secret) const {
    WebhookEnvelope envelope = Generic(url);
    envelope.format = format;
    envelope.secret = secret;
    envelope.notice = {.event_type = "document.approved",
                       .document_title = "数据库备份与恢复规范",
                       .version = 3,
                       .actor_name = "王芳",
                       .link = "https://kb.example.com/#/reviews/40"};
    return envelope;
  }
  WebhookAttempt Send(const WebhookEnvelope& envelope,
                      Destinations destinations = Destinations::kAny,
                      milliseconds answer_timeout = milliseconds(10'000)) const {
    WebhookSender::Options options;
    options.destinations = destinations;
    options.answer_timeout = answer_timeout;
    return WebhookSender(options, nullptr, digest_).Send(envelope, kNow);
  }
  std::string Hmac(const std::string& key, const std::string& data) const {
    const std::string mac = digest_.HmacSha256(key, data);
    return LowerHex(std::span(reinterpret_cast<const unsigned char*>(mac.data()), mac.size()));
  }

  OpenSslDigest digest_;
  WebhookTestReceiver receiver_;
};

TEST_F(WebhookSenderTest, AGenericDeliveryCarriesTheEventAndASignatureTheReceiverCanCheck) {
  const WebhookAttempt attempt = Send(Generic(receiver_.url("/hooks/docgate")));
  EXPECT_TRUE(attempt.delivered) << attempt.error;
  EXPECT_EQ(attempt.status, 200);
  const auto requests = receiver_.requests();
  ASSERT_EQ(requests.size(), 1u);
  const auto& request = requests[0];
  EXPECT_EQ(request.method, "POST");
  EXPECT_EQ(request.target, "/hooks/docgate");
  EXPECT_EQ(request.body, kEventBody);
  EXPECT_EQ(request.headers.at("content-type"), "application/json; charset=utf-8");
  EXPECT_EQ(request.headers.at("x-docgate-event"), "document.approved");
  EXPECT_EQ(request.headers.at("x-docgate-delivery"), "d-1001");
  EXPECT_EQ(request.headers.at("x-docgate-timestamp"), "1796000000");
  // What a receiver does: HMAC-SHA256 over timestamp "." raw body, with the shared secret.
  EXPECT_EQ(request.headers.at("x-docgate-signature"),
            "sha256=" + Hmac("whsec_测试", "1796000000." + request.body));
}

TEST_F(WebhookSenderTest, DingTalkIsSignedInTheQueryBesideTheRobotsToken) {
  const WebhookAttempt attempt =
      Send(Chat(WebhookFormat::kDingTalk, receiver_.url("/robot/send?access_token=abc123"),
                "SEC0123456789abcdef"));
  EXPECT_TRUE(attempt.delivered) << attempt.error;
  const auto request = receiver_.requests().at(0);
  const std::string sign = DingTalkSign(digest_, "SEC0123456789abcdef", 1796000000123);
  EXPECT_EQ(request.target,
            "/robot/send?access_token=abc123&timestamp=1796000000123&sign=" + PercentEncoded(sign));
  EXPECT_EQ(nlohmann::json::parse(request.body)["msgtype"], "markdown");
  EXPECT_EQ(request.headers.count("x-docgate-signature"), 0u);
}

TEST_F(WebhookSenderTest, FeishuIsSignedInTheBodyAndWeComNotAtAll) {
  EXPECT_TRUE(
      Send(Chat(WebhookFormat::kFeishu, receiver_.url("/open-apis/bot/v2/hook/x"), "feishu-secret"))
          .delivered);
  EXPECT_TRUE(Send(Chat(WebhookFormat::kWeCom, receiver_.url("/cgi-bin/webhook/send?key=k"), ""))
                  .delivered);
  const auto requests = receiver_.requests();
  ASSERT_EQ(requests.size(), 2u);
  const auto feishu = nlohmann::json::parse(requests[0].body);
  EXPECT_EQ(feishu["timestamp"], "1796000000");
  EXPECT_EQ(feishu["sign"], FeishuSign(digest_, "feishu-secret", 1796000000));
  EXPECT_EQ(requests[1].target, "/cgi-bin/webhook/send?key=k");
  EXPECT_EQ(nlohmann::json::parse(requests[1].body)["msgtype"], "markdown");
}

TEST_F(WebhookSenderTest, FailuresSayWhyAndCarryRetryAfter) {
  receiver_.Answer({.status = 500, .headers = {}, .body = "boom"});
  receiver_.Answer({.status = 503, .headers = {{"Retry-After", "120"}}, .body = ""});
  receiver_.Answer(
      {.status = 429, .headers = {{"Retry-After", "Wed, 08 Dec 2026 00:00:00 GMT"}}, .body = ""});
  const WebhookAttempt error = Send(Generic(receiver_.url()));
  EXPECT_FALSE(error.delivered);
  EXPECT_EQ(error.status, 500);
  EXPECT_EQ(error.error, "HTTP 500");
  EXPECT_EQ(error.retry_after, std::nullopt);
  const WebhookAttempt unavailable = Send(Generic(receiver_.url()));
  EXPECT_EQ(unavailable.status, 503);
  EXPECT_EQ(unavailable.retry_after, seconds(120));
  const WebhookAttempt limited = Send(Generic(receiver_.url()));
  EXPECT_EQ(limited.status, 429);
  // 2026-12-08T00:00:00Z is 1796688000 s; kNow is 1796000000.123 s.
  EXPECT_EQ(limited.retry_after, milliseconds(688'000'000 - 123));
}

TEST_F(WebhookSenderTest, ARedirectIsAFailureAndItsTargetIsNeverCalled) {
  WebhookTestReceiver elsewhere;
  receiver_.Answer({.status = 302, .headers = {{"Location", elsewhere.url()}}, .body = ""});
  const WebhookAttempt attempt = Send(Generic(receiver_.url()));
  EXPECT_FALSE(attempt.delivered);
  EXPECT_EQ(attempt.status, 302);
  EXPECT_EQ(attempt.error, "HTTP 302: redirects are not followed");
  EXPECT_TRUE(elsewhere.requests().empty());
}

TEST_F(WebhookSenderTest, ARobotsRefusalInA200IsAFailure) {
  receiver_.Answer(
      {.status = 200, .headers = {}, .body = R"({"errcode":310000,"errmsg":"sign not match"})"});
  const WebhookAttempt attempt =
      Send(Chat(WebhookFormat::kDingTalk, receiver_.url("/robot/send?access_token=t"), "SECx"));
  EXPECT_FALSE(attempt.delivered);
  EXPECT_EQ(attempt.status, 200);
  EXPECT_EQ(attempt.error, "the robot refused the message: errcode 310000: sign not match");
}

TEST_F(WebhookSenderTest, AnAnswerLaterThanTheTimeoutIsAFailureWithoutAStatus) {
  receiver_.Answer({.status = 200, .headers = {}, .body = "{}", .delay = milliseconds(500)});
  const WebhookAttempt attempt =
      Send(Generic(receiver_.url()), Destinations::kAny, milliseconds(100));
  EXPECT_FALSE(attempt.delivered);
  EXPECT_EQ(attempt.status, std::nullopt);
  EXPECT_FALSE(attempt.error.empty());
}

TEST_F(WebhookSenderTest, PublicOnlyRefusesTheLoopbackReceiverAndABadUrlIsAFailure) {
  const WebhookAttempt refused = Send(Generic(receiver_.url()), Destinations::kPublicOnly);
  EXPECT_FALSE(refused.delivered);
  EXPECT_EQ(refused.error,
            "refused to connect: 127.0.0.1 resolves to 127.0.0.1, a loopback address");
  const WebhookAttempt bad = Send(Generic("ftp://example.com/hook"));
  EXPECT_FALSE(bad.delivered);
  EXPECT_EQ(bad.error, "the URL cannot be used: the scheme must be http:// or https://");
  EXPECT_EQ(Send(Generic("https://127.0.0.1:" + std::to_string(receiver_.port()) + "/hook")).error,
            "the URL cannot be used: this sender has no TLS settings for https://");
  EXPECT_TRUE(receiver_.requests().empty());
}

TEST(RetryAfterTest, SecondsAndHttpDatesAreReadAndAnythingElseIsNot) {
  EXPECT_EQ(ParseRetryAfter("120", kNow), seconds(120));
  EXPECT_EQ(ParseRetryAfter(" 0 ", kNow), seconds(0));
  EXPECT_EQ(ParseRetryAfter("Sun, 29 Nov 2026 00:00:00 GMT", kNow), milliseconds(0));  // past
  EXPECT_EQ(ParseRetryAfter("Wed, 08 Dec 2026 00:00:00 GMT", kNow), milliseconds(687'999'877));
  for (const char* bad : {"", "-5", "1.5", "soon", "Wed, 08 Dec 2026 00:00:00 CET", "12abc"}) {
    EXPECT_EQ(ParseRetryAfter(bad, kNow), std::nullopt) << bad;
  }
}

}  // namespace
}  // namespace docgate
