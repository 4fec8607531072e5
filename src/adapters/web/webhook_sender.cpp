#include "adapters/web/webhook_sender.h"

#include <boost/beast/http/field.hpp>
#include <boost/beast/http/verb.hpp>
#include <charconv>
#include <ctime>
#include <stdexcept>

#include "app/webhook_signature.h"
#include "core/percent_encoding.h"

namespace docgate {
namespace {

namespace http = boost::beast::http;

std::int64_t UnixMillis(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

std::optional<ChatService> ChatServiceOf(WebhookFormat format) {
  switch (format) {
    case WebhookFormat::kWeCom:
      return ChatService::kWeCom;
    case WebhookFormat::kDingTalk:
      return ChatService::kDingTalk;
    case WebhookFormat::kFeishu:
      return ChatService::kFeishu;
    case WebhookFormat::kGeneric:
      return std::nullopt;
  }
  return std::nullopt;
}

std::string Body(const WebhookEnvelope& envelope, const Digest& digest, TimePoint now) {
  const std::optional<ChatService> chat = ChatServiceOf(envelope.format);
  if (!chat) return envelope.event_body;
  std::optional<std::pair<std::int64_t, std::string>> feishu_signature;
  if (*chat == ChatService::kFeishu && !envelope.secret.empty()) {
    const std::int64_t seconds = UnixMillis(now) / 1000;
    feishu_signature.emplace(seconds, FeishuSign(digest, envelope.secret, seconds));
  }
  return ChatMessageBody(*chat, envelope.notice, envelope.language, feishu_signature);
}

}  // namespace

OutboundRequest PrepareWebhookRequest(const WebhookEnvelope& envelope, const Digest& digest,
                                      TimePoint now) {
  OutboundRequest out{.target = ParseWebTarget(envelope.url, "the webhook's secret"),
                      .request = {}};
  if (envelope.format == WebhookFormat::kDingTalk && !envelope.secret.empty()) {
    const std::int64_t millis = UnixMillis(now);
    out.target.target += out.target.target.find('?') == std::string::npos ? '?' : '&';
    out.target.target += "timestamp=" + std::to_string(millis) +
                         "&sign=" + PercentEncoded(DingTalkSign(digest, envelope.secret, millis));
  }
  HttpRequest& request = out.request;
  request.method(http::verb::post);
  request.target(out.target.target);
  request.version(11);
  request.set(http::field::host, out.target.server.HostHeader());
  request.set(http::field::user_agent, "docgate-webhooks");
  request.set(http::field::content_type, "application/json; charset=utf-8");
  request.body() = Body(envelope, digest, now);
  if (envelope.format == WebhookFormat::kGeneric) {
    const std::int64_t seconds = UnixMillis(now) / 1000;
    request.set("X-Docgate-Event", envelope.event_type);
    request.set("X-Docgate-Delivery", envelope.delivery_id);
    request.set("X-Docgate-Timestamp", std::to_string(seconds));
    request.set("X-Docgate-Signature",
                GenericWebhookSignature(digest, envelope.secret, seconds, request.body()));
  }
  request.prepare_payload();
  return out;
}

std::optional<std::chrono::milliseconds> ParseRetryAfter(std::string_view value, TimePoint now) {
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
  std::int64_t seconds = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (!value.empty() && ec == std::errc() && end == value.data() + value.size()) {
    if (seconds < 0) return std::nullopt;
    return std::chrono::milliseconds(std::min<std::int64_t>(seconds, 366LL * 86400) * 1000);
  }
  // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT".
  std::tm tm{};
  const std::string text(value);
  const char* parsed = strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (parsed == nullptr || *parsed != '\0') return std::nullopt;
  const TimePoint at{std::chrono::seconds(timegm(&tm))};
  if (at <= now) return std::chrono::milliseconds(0);
  return std::chrono::duration_cast<std::chrono::milliseconds>(at - now);
}

WebhookSender::WebhookSender(Options options, std::shared_ptr<boost::asio::ssl::context> tls,
                             const Digest& digest)
    : options_(options), tls_(std::move(tls)), digest_(digest) {}

WebhookAttempt WebhookSender::Send(const WebhookEnvelope& envelope, TimePoint now) const {
  WebhookAttempt attempt;
  OutboundRequest outbound;
  try {
    outbound = PrepareWebhookRequest(envelope, digest_, now);
  } catch (const std::invalid_argument& error) {
    attempt.error = std::string("the URL cannot be used: ") + error.what();
    return attempt;
  }
  if (outbound.target.server.tls && !tls_) {
    attempt.error = "the URL cannot be used: this sender has no TLS settings for https://";
    return attempt;
  }
  HttpResponse response;
  try {
    HttpConnection connection(outbound.target.server, tls_, options_.connect_timeout,
                              options_.destinations);
    response =
        connection.Exchange(outbound.request, options_.answer_timeout, options_.answer_limit);
  } catch (const UnsafeDestinationError& error) {
    attempt.error = std::string("refused to connect: ") + error.what();
    return attempt;
  } catch (const HttpTransportError& error) {
    attempt.error = error.what();
    return attempt;
  }
  const int status = static_cast<int>(response.result_int());
  attempt.status = status;
  if (const auto header = response.find(http::field::retry_after); header != response.end()) {
    attempt.retry_after =
        ParseRetryAfter(std::string_view(header->value().data(), header->value().size()), now);
  }
  if (status >= 300 && status < 400) {
    attempt.error = "HTTP " + std::to_string(status) + ": redirects are not followed";
    return attempt;
  }
  if (status < 200 || status >= 300) {
    attempt.error = "HTTP " + std::to_string(status);
    return attempt;
  }
  if (const std::optional<ChatService> chat = ChatServiceOf(envelope.format)) {
    if (std::optional<std::string> refusal = ChatServiceRefusal(*chat, response.body())) {
      attempt.error = "the robot refused the message: " + *refusal;
      return attempt;
    }
  }
  attempt.delivered = true;
  return attempt;
}

}  // namespace docgate
