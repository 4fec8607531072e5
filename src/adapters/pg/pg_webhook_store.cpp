#include "adapters/pg/pg_webhook_store.h"

#include <array>
#include <limits>
#include <utility>
#include <vector>

#include "adapters/pg/pg_rows.h"
#include "adapters/pg/pg_session.h"
#include "adapters/sql/shared_statements.h"
#include "adapters/sql/word_list.h"
#include "app/webhook_names.h"
#include "core/error.h"

namespace docgate {
namespace {

using namespace pg;
using pg_sql::Statement;

constexpr Statement kInsertWebhook{"insert_webhook", sql::kInsertWebhook};
constexpr Statement kSelectWebhooks{"select_webhooks", sql::kSelectWebhooks};
constexpr Statement kSelectWebhook{"select_webhook", sql::kSelectWebhook};
constexpr Statement kDeleteWebhook{"delete_webhook", sql::kDeleteWebhook};
constexpr Statement kEnqueueWebhookDeliveries{"enqueue_webhook_deliveries",
                                              sql::kEnqueueWebhookDeliveries};
constexpr Statement kSelectWebhookDeliveries{"select_webhook_deliveries",
                                             sql::kSelectWebhookDeliveries};
constexpr Statement kSelectWebhookDelivery{"select_webhook_delivery", sql::kSelectWebhookDelivery};
constexpr Statement kRedeliverWebhookDelivery{"redeliver_webhook_delivery",
                                              sql::kRedeliverWebhookDelivery};

constexpr std::array kWebhookStatements{
    kInsertWebhook,         kSelectWebhooks,           kSelectWebhook,
    kDeleteWebhook,         kEnqueueWebhookDeliveries, kSelectWebhookDeliveries,
    kSelectWebhookDelivery, kRedeliverWebhookDelivery};

Webhook ToWebhook(const pqxx::row& row) {
  return Webhook{row[0].as<std::int64_t>(),
                 row[1].as<std::string>(),
                 sql::SplitWords(row[2].as<std::string>()),
                 Enum<WebhookFormat>(row[3], &ParseWebhookFormat, "kh_webhook.format"),
                 Nullable<std::string>(row[4]),
                 Nullable<std::string>(row[5]),
                 row[6].as<std::string>(),
                 FromMillis(row[7].as<std::int64_t>())};
}

WebhookDelivery ToDelivery(const pqxx::row& row) {
  const std::optional<std::int64_t> delivered_at = Nullable<std::int64_t>(row[10]);
  return WebhookDelivery{
      row[0].as<std::int64_t>(),
      row[1].as<std::int64_t>(),
      row[2].as<std::string>(),
      row[3].as<std::string>(),
      row[4].as<std::string>(),
      Enum<WebhookDeliveryStatus>(row[5], &ParseWebhookDeliveryStatus,
                                  "kh_webhook_delivery.status"),
      row[6].as<std::int32_t>(),
      Nullable<std::int32_t>(row[7]),
      Nullable<std::string>(row[8]),
      FromMillis(row[9].as<std::int64_t>()),
      delivered_at ? std::optional<TimePoint>(FromMillis(*delivered_at)) : std::nullopt,
      FromMillis(row[11].as<std::int64_t>())};
}

}  // namespace

PgWebhookStore::PgWebhookStore(std::shared_ptr<PgSession> session) : session_(std::move(session)) {}

std::span<const Statement> PgWebhookStore::Statements() { return kWebhookStatements; }

WebhookId PgWebhookStore::Create(const Webhook& webhook) {
  const std::optional<std::string> events = sql::JoinWords(webhook.events);
  if (!events || events->empty()) {
    throw StorageError("postgres: a webhook's events must be non-empty words without spaces");
  }
  const std::string format(WebhookFormatName(webhook.format));
  return session_->Atomically("create webhook", [&](pqxx::transaction_base& tx) {
    return tx
        .exec_prepared1(kInsertWebhook.name, Checked(webhook.url), Checked(*events),
                        Checked(format), Checked(webhook.sealed_secret),
                        Checked(webhook.description), Checked(webhook.created_by),
                        Millis(webhook.created_at))[0]
        .as<std::int64_t>();
  });
}

std::vector<Webhook> PgWebhookStore::List() {
  return session_->Autocommit("list webhooks", [&](pqxx::transaction_base& tx) {
    return All<Webhook>(tx.exec_prepared(kSelectWebhooks.name), ToWebhook);
  });
}

std::optional<Webhook> PgWebhookStore::Find(WebhookId id) {
  return session_->Autocommit("find webhook", [&](pqxx::transaction_base& tx) {
    return First<Webhook>(tx.exec_prepared(kSelectWebhook.name, id), ToWebhook);
  });
}

bool PgWebhookStore::Delete(WebhookId id, TimePoint at) {
  return session_->Autocommit("delete webhook", [&](pqxx::transaction_base& tx) {
    return tx.exec_prepared(kDeleteWebhook.name, id, Millis(at)).affected_rows() == 1;
  });
}

std::size_t PgWebhookStore::Enqueue(const std::vector<WebhookEvent>& events, TimePoint at) {
  if (events.empty()) return 0;
  return session_->Atomically("enqueue webhook deliveries", [&](pqxx::transaction_base& tx) {
    std::size_t added = 0;
    for (const WebhookEvent& event : events) {
      added += static_cast<std::size_t>(
          tx.exec_prepared(kEnqueueWebhookDeliveries.name, Checked(event.event_id),
                           Checked(event.event_type), Checked(event.payload), Millis(at))
              .affected_rows());
    }
    return added;
  });
}

std::vector<WebhookDelivery> PgWebhookStore::Deliveries(WebhookId id, std::size_t limit,
                                                        std::optional<WebhookDeliveryId> after) {
  return session_->Autocommit("list webhook deliveries", [&](pqxx::transaction_base& tx) {
    return All<WebhookDelivery>(
        tx.exec_prepared(kSelectWebhookDeliveries.name, id,
                         after.value_or(std::numeric_limits<WebhookDeliveryId>::max()),
                         static_cast<std::int64_t>(limit)),
        ToDelivery);
  });
}

std::optional<WebhookDelivery> PgWebhookStore::FindDelivery(WebhookId id,
                                                            WebhookDeliveryId delivery) {
  return session_->Autocommit("find webhook delivery", [&](pqxx::transaction_base& tx) {
    return First<WebhookDelivery>(tx.exec_prepared(kSelectWebhookDelivery.name, id, delivery),
                                  ToDelivery);
  });
}

bool PgWebhookStore::Redeliver(WebhookId id, WebhookDeliveryId delivery, TimePoint at) {
  return session_->Autocommit("redeliver webhook delivery", [&](pqxx::transaction_base& tx) {
    return tx.exec_prepared(kRedeliverWebhookDelivery.name, id, delivery, Millis(at))
               .affected_rows() == 1;
  });
}

}  // namespace docgate
