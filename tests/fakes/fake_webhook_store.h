#pragma once

#include <map>
#include <memory>
#include <mutex>

#include "app/ports/webhook_store.h"
#include "fakes/fake_database.h"

namespace docgate {

// WebhookStore in memory, on a FakeDatabase shared with the database's other fakes. Every write
// is a write of its own (FakeDatabase::Write), every read a read. As the databases do, a webhook
// whose events are empty, or hold an empty word or one with a space, is a StorageError.
// Thread-safe.
class FakeWebhookStore final : public WebhookStore {
 public:
  explicit FakeWebhookStore(std::shared_ptr<FakeDatabase> database);

  WebhookId Create(const Webhook& webhook) override;
  std::vector<Webhook> List() override;
  std::optional<Webhook> Find(WebhookId id) override;
  bool Delete(WebhookId id, TimePoint at) override;
  std::size_t Enqueue(const std::vector<WebhookEvent>& events, TimePoint at) override;
  std::vector<WebhookDelivery> Deliveries(WebhookId id, std::size_t limit,
                                          std::optional<WebhookDeliveryId> after) override;
  std::optional<WebhookDelivery> FindDelivery(WebhookId id, WebhookDeliveryId delivery) override;
  bool Redeliver(WebhookId id, WebhookDeliveryId delivery, TimePoint at) override;

 private:
  struct Row {
    Webhook webhook;
    bool deleted = false;
  };

  std::shared_ptr<FakeDatabase> database_;
  // Taken inside the database's Read and Write, never the other way round.
  std::mutex mutex_;
  std::map<WebhookId, Row> webhooks_;                        // guarded by mutex_
  std::map<WebhookDeliveryId, WebhookDelivery> deliveries_;  // guarded by mutex_
  WebhookId next_webhook_ = 1;                               // guarded by mutex_
  WebhookDeliveryId next_delivery_ = 1;                      // guarded by mutex_
};

}  // namespace docgate
