#include "fakes/fake_webhook_store.h"

#include <algorithm>
#include <utility>

#include "core/error.h"

namespace docgate {
namespace {

bool Takes(const Webhook& webhook, const std::string& event_type) {
  return std::any_of(webhook.events.begin(), webhook.events.end(),
                     [&](const std::string& key) { return key == "*" || key == event_type; });
}

}  // namespace

FakeWebhookStore::FakeWebhookStore(std::shared_ptr<FakeDatabase> database)
    : database_(std::move(database)) {}

WebhookId FakeWebhookStore::Create(const Webhook& webhook) {
  const bool bad_event = std::any_of(
      webhook.events.begin(), webhook.events.end(),
      [](const std::string& key) { return key.empty() || key.find(' ') != std::string::npos; });
  if (webhook.events.empty() || bad_event) {
    throw StorageError("fake: a webhook's events must be non-empty words without spaces");
  }
  return database_->Write([&](FakeTables&) {
    std::lock_guard lock(mutex_);
    Row row{webhook, false};
    row.webhook.id = next_webhook_++;
    webhooks_.emplace(row.webhook.id, row);
    return row.webhook.id;
  });
}

std::vector<Webhook> FakeWebhookStore::List() {
  return database_->Read([&](const FakeTables&) {
    std::lock_guard lock(mutex_);
    std::vector<Webhook> live;
    for (const auto& entry : webhooks_) {
      if (!entry.second.deleted) live.push_back(entry.second.webhook);
    }
    return live;
  });
}

std::optional<Webhook> FakeWebhookStore::Find(WebhookId id) {
  return database_->Read([&](const FakeTables&) -> std::optional<Webhook> {
    std::lock_guard lock(mutex_);
    const auto found = webhooks_.find(id);
    if (found == webhooks_.end() || found->second.deleted) return std::nullopt;
    return found->second.webhook;
  });
}

bool FakeWebhookStore::Delete(WebhookId id, TimePoint) {
  return database_->Write([&](FakeTables&) {
    std::lock_guard lock(mutex_);
    const auto found = webhooks_.find(id);
    if (found == webhooks_.end() || found->second.deleted) return false;
    found->second.deleted = true;
    return true;
  });
}

std::size_t FakeWebhookStore::Enqueue(const std::vector<WebhookEvent>& events, TimePoint at) {
  return database_->Write([&](FakeTables&) {
    std::lock_guard lock(mutex_);
    std::size_t added = 0;
    for (const WebhookEvent& event : events) {
      for (const auto& hook : webhooks_) {
        const WebhookId id = hook.first;
        if (hook.second.deleted || !Takes(hook.second.webhook, event.event_type)) continue;
        const bool exists =
            std::any_of(deliveries_.begin(), deliveries_.end(), [&](const auto& entry) {
              return entry.second.webhook_id == id && entry.second.event_id == event.event_id;
            });
        if (exists) continue;
        WebhookDelivery delivery;
        delivery.id = next_delivery_++;
        delivery.webhook_id = id;
        delivery.event_id = event.event_id;
        delivery.event_type = event.event_type;
        delivery.payload = event.payload;
        delivery.next_attempt_at = at;
        delivery.created_at = at;
        deliveries_.emplace(delivery.id, delivery);
        ++added;
      }
    }
    return added;
  });
}

std::vector<WebhookDelivery> FakeWebhookStore::Deliveries(WebhookId id, std::size_t limit,
                                                          std::optional<WebhookDeliveryId> after) {
  return database_->Read([&](const FakeTables&) {
    std::lock_guard lock(mutex_);
    std::vector<WebhookDelivery> page;
    for (auto it = deliveries_.rbegin(); it != deliveries_.rend() && page.size() < limit; ++it) {
      if (it->second.webhook_id != id || (after && it->first >= *after)) continue;
      page.push_back(it->second);
    }
    return page;
  });
}

std::optional<WebhookDelivery> FakeWebhookStore::FindDelivery(WebhookId id,
                                                              WebhookDeliveryId delivery) {
  return database_->Read([&](const FakeTables&) -> std::optional<WebhookDelivery> {
    std::lock_guard lock(mutex_);
    const auto found = deliveries_.find(delivery);
    if (found == deliveries_.end() || found->second.webhook_id != id) return std::nullopt;
    return found->second;
  });
}

bool FakeWebhookStore::Redeliver(WebhookId id, WebhookDeliveryId delivery, TimePoint at) {
  return database_->Write([&](FakeTables&) {
    std::lock_guard lock(mutex_);
    const auto hook = webhooks_.find(id);
    const auto found = deliveries_.find(delivery);
    if (hook == webhooks_.end() || hook->second.deleted || found == deliveries_.end() ||
        found->second.webhook_id != id) {
      return false;
    }
    found->second.status = WebhookDeliveryStatus::kPending;
    found->second.next_attempt_at = at;
    return true;
  });
}

}  // namespace docgate
