#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model.h"

namespace docgate {

using WebhookId = std::int64_t;
using WebhookDeliveryId = std::int64_t;

// A webhook's payload format (API.md v1.2 "Webhooks").
enum class WebhookFormat { kGeneric, kWeCom, kDingTalk, kFeishu };

// A subscription an admin registered (ADR 0017).
struct Webhook {
  WebhookId id = 0;  // set by the store
  std::string url;
  std::vector<std::string> events;  // routing keys, or the one entry "*"
  WebhookFormat format = WebhookFormat::kGeneric;
  std::optional<std::string> sealed_secret;  // SecretSealer::Seal's text; nullopt for none
  std::optional<std::string> description;
  UserId created_by;
  TimePoint created_at{};

  bool operator==(const Webhook&) const = default;
};

enum class WebhookDeliveryStatus { kPending, kDelivered, kFailed };

// One event for one webhook: its id is X-Docgate-Delivery, the same on every attempt.
struct WebhookDelivery {
  WebhookDeliveryId id = 0;
  WebhookId webhook_id = 0;
  std::string event_id;
  std::string event_type;
  std::string payload;  // the event's JSON body, as the outbox wrote it
  WebhookDeliveryStatus status = WebhookDeliveryStatus::kPending;
  std::int32_t attempts = 0;
  std::optional<std::int32_t> last_status;  // the last answer's HTTP status
  std::optional<std::string> last_error;
  TimePoint next_attempt_at{};
  std::optional<TimePoint> delivered_at;
  TimePoint created_at{};

  bool operator==(const WebhookDelivery&) const = default;
};

// An event to deliver to the webhooks that take its type.
struct WebhookEvent {
  std::string event_id;
  std::string event_type;
  std::string payload;
};

// Where webhooks and their deliveries live, shared by every instance. Thread-safe. Each method is
// a unit of work of its own. Throws StorageUnavailable when the backend cannot be reached and
// StorageError on anything else.
class WebhookStore {
 public:
  virtual ~WebhookStore() = default;
  // Adds `webhook` (its id ignored) and returns its id, ids increasing.
  virtual WebhookId Create(const Webhook& webhook) = 0;
  // The webhooks not deleted, oldest first.
  virtual std::vector<Webhook> List() = 0;
  // The webhook `id` unless there is none or it was deleted.
  virtual std::optional<Webhook> Find(WebhookId id) = 0;
  // Deletes the webhook: it is no longer listed, found, given new deliveries, or sent pending
  // ones; its delivery log stays readable. False when there was none (or it was deleted already).
  virtual bool Delete(WebhookId id, TimePoint at) = 0;
  // Adds a pending delivery, due at `at`, of each event to each webhook not deleted whose events
  // hold its type or "*". An (event, webhook) pair that has a delivery already gets no second one,
  // so enqueueing an event again (a consumer's redelivery) adds nothing. Returns how many were
  // added.
  virtual std::size_t Enqueue(const std::vector<WebhookEvent>& events, TimePoint at) = 0;
  // A page of the deliveries of webhook `id` (deleted or not), newest first: at most `limit`
  // (1..100), those older than `after` when given.
  virtual std::vector<WebhookDelivery> Deliveries(WebhookId id, std::size_t limit,
                                                  std::optional<WebhookDeliveryId> after) = 0;
  // Delivery `delivery` of webhook `id`, if it is one of its deliveries.
  virtual std::optional<WebhookDelivery> FindDelivery(WebhookId id, WebhookDeliveryId delivery) = 0;
  // Makes the delivery pending again, due at `at`, whatever its status (its attempts and id
  // stay): an admin's redeliver. False when the webhook was deleted or the delivery is not its.
  virtual bool Redeliver(WebhookId id, WebhookDeliveryId delivery, TimePoint at) = 0;
};

}  // namespace docgate
