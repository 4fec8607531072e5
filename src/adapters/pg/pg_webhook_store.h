#pragma once

#include <memory>
#include <span>

#include "adapters/pg/pg_statements.h"
#include "app/ports/webhook_store.h"

namespace docgate {

class PgSession;

// The WebhookStore on PostgreSQL (kh_webhook, kh_webhook_delivery), over a PgSession shared with
// the database's other stores; its SQL is shared with SQLite (adapters/sql/shared_statements.h).
// Create and Enqueue run in a transaction of their own (an INSERT run again after a lost answer
// would report a duplicate or count twice); the others are one statement in autocommit, which a
// retry after a lost answer repeats harmlessly (Delete and Redeliver then answer for the retry).
// Thread-safe.
class PgWebhookStore final : public WebhookStore {
 public:
  explicit PgWebhookStore(std::shared_ptr<PgSession> session);

  // The statements this store runs, for the session to prepare on every connection.
  static std::span<const pg_sql::Statement> Statements();

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
  std::shared_ptr<PgSession> session_;
};

}  // namespace docgate
