#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "adapters/web/chat_message.h"
#include "adapters/web/http_connection.h"
#include "adapters/web/web_url.h"
#include "app/ports/digest.h"
#include "app/ports/webhook_store.h"
#include "core/model.h"

namespace docgate {

// One delivery of one event to one webhook: everything a send needs, read from the delivery's
// rows. `secret` is the opened signing secret ("" for none: a chat robot without 加签).
struct WebhookEnvelope {
  WebhookFormat format = WebhookFormat::kGeneric;
  std::string url;  // as the admin saved it (a query allowed)
  std::string secret;
  std::string delivery_id;  // X-Docgate-Delivery: the same on every attempt
  std::string event_type;   // X-Docgate-Event
  std::string event_body;   // generic: the event's JSON, sent as it is
  ChatNotice notice = {};   // chat formats
  NoticeLanguage language = NoticeLanguage::kChinese;
};

// The request of one attempt at `now` (timestamps and signatures are per attempt), and where it
// goes. Throws std::invalid_argument for a URL ParseWebTarget refuses.
struct OutboundRequest {
  WebTarget target;
  HttpRequest request;
};
OutboundRequest PrepareWebhookRequest(const WebhookEnvelope& envelope, const Digest& digest,
                                      TimePoint now);

// What one attempt came to. `error` says why it was not delivered, for the delivery log: it never
// holds the URL's query or the secret.
struct WebhookAttempt {
  bool delivered = false;
  std::optional<int> status;  // the answer's HTTP status, when one came
  std::string error;
  std::optional<std::chrono::milliseconds> retry_after;  // the answer's Retry-After, if any
};

// A Retry-After header's wait from `now`: delta-seconds, or an HTTP date (RFC 9110's
// IMF-fixdate); nullopt for anything else. A date in the past is a wait of zero.
std::optional<std::chrono::milliseconds> ParseRetryAfter(std::string_view value, TimePoint now);

// Sends webhook deliveries, one connection per attempt. A 2xx is delivered (for a chat robot,
// only when its JSON answer carries a zero code); a 3xx is a failure, its Location never
// followed; an answer is read up to `answer_limit` bytes (a longer one is a failure). Connecting
// takes at most `connect_timeout` and the answer must come within `answer_timeout` of sending.
// Thread-safe: each Send has its own connection.
class WebhookSender {
 public:
  struct Options {
    Destinations destinations = Destinations::kPublicOnly;
    std::chrono::milliseconds connect_timeout{3'000};
    std::chrono::milliseconds answer_timeout{10'000};
    std::size_t answer_limit = 64 * 1024;
  };
  // `tls` verifies https:// receivers (MakeVerifyingTlsContext); without it an https:// URL is a
  // failed attempt.
  WebhookSender(Options options, std::shared_ptr<boost::asio::ssl::context> tls,
                const Digest& digest);

  // Never throws for a receiver's fault or a bad URL: each is an attempt that failed.
  WebhookAttempt Send(const WebhookEnvelope& envelope, TimePoint now) const;

 private:
  const Options options_;
  const std::shared_ptr<boost::asio::ssl::context> tls_;
  const Digest& digest_;
};

}  // namespace docgate
