#pragma once

#include <memory>

#include "app/ports/webhook_store.h"

namespace docgate {

class SqliteSession;

// The WebhookStore on SQLite (kh_webhook, kh_webhook_delivery), over a SqliteSession shared with
// the file's other stores; its SQL is shared with PostgreSQL (adapters/sql/shared_statements.h).
// Writes run under BEGIN IMMEDIATE with the writer slot, Enqueue one INSERT ... SELECT per event in
// one transaction; reads run in autocommit. Thread-safe.
class SqliteWebhookStore final : public WebhookStore {
 public:
  explicit SqliteWebhookStore(std::shared_ptr<SqliteSession> session);

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
  std::shared_ptr<SqliteSession> session_;
};

}  // namespace docgate
