#include "adapters/sqlite/sqlite_webhook_store.h"

#include <limits>
#include <string_view>
#include <utility>

#include "adapters/sql/shared_statements.h"
#include "adapters/sql/word_list.h"
#include "adapters/sqlite/sqlite_rows.h"
#include "adapters/sqlite/sqlite_session.h"
#include "app/webhook_names.h"
#include "core/error.h"

namespace docgate {
namespace {

using sqlite_rows::EnumColumn;
using sqlite_rows::Nullable;

constexpr std::string_view kInsertWebhook = sql::kSqlite<sql::kInsertWebhook>;
constexpr std::string_view kSelectWebhooks = sql::kSqlite<sql::kSelectWebhooks>;
constexpr std::string_view kSelectWebhook = sql::kSqlite<sql::kSelectWebhook>;
constexpr std::string_view kDeleteWebhook = sql::kSqlite<sql::kDeleteWebhook>;
constexpr std::string_view kEnqueueWebhookDeliveries = sql::kSqlite<sql::kEnqueueWebhookDeliveries>;
constexpr std::string_view kSelectWebhookDeliveries = sql::kSqlite<sql::kSelectWebhookDeliveries>;
constexpr std::string_view kSelectWebhookDelivery = sql::kSqlite<sql::kSelectWebhookDelivery>;
constexpr std::string_view kRedeliverWebhookDelivery = sql::kSqlite<sql::kRedeliverWebhookDelivery>;

Webhook WebhookFromRow(const SqliteStatement& row) {
  return Webhook{row.Int64(0),
                 row.Text(1),
                 sql::SplitWords(row.Text(2)),
                 EnumColumn(row, 3, &ParseWebhookFormat, "kh_webhook.format"),
                 Nullable(row, 4, &SqliteStatement::Text),
                 Nullable(row, 5, &SqliteStatement::Text),
                 row.Text(6),
                 row.Time(7)};
}

WebhookDelivery DeliveryFromRow(const SqliteStatement& row) {
  return WebhookDelivery{
      row.Int64(0),
      row.Int64(1),
      row.Text(2),
      row.Text(3),
      row.Text(4),
      EnumColumn(row, 5, &ParseWebhookDeliveryStatus, "kh_webhook_delivery.status"),
      row.Int32(6),
      Nullable(row, 7, &SqliteStatement::Int32),
      Nullable(row, 8, &SqliteStatement::Text),
      row.Time(9),
      Nullable(row, 10, &SqliteStatement::Time),
      row.Time(11)};
}

}  // namespace

SqliteWebhookStore::SqliteWebhookStore(std::shared_ptr<SqliteSession> session)
    : session_(std::move(session)) {}

WebhookId SqliteWebhookStore::Create(const Webhook& webhook) {
  const std::optional<std::string> events = sql::JoinWords(webhook.events);
  if (!events || events->empty()) {
    throw StorageError("sqlite: a webhook's events must be non-empty words without spaces");
  }
  return session_->Atomically([&](SqliteConnection& connection) {
    SqliteStatement stmt = connection.Prepare(kInsertWebhook);
    stmt.Bind(1, webhook.url)
        .Bind(2, *events)
        .Bind(3, WebhookFormatName(webhook.format))
        .Bind(4, webhook.sealed_secret)
        .Bind(5, webhook.description)
        .Bind(6, webhook.created_by)
        .Bind(7, webhook.created_at);
    return sqlite_rows::ReturnedId(stmt);
  });
}

std::vector<Webhook> SqliteWebhookStore::List() {
  return session_->ReadAll(kSelectWebhooks, &WebhookFromRow);
}

std::optional<Webhook> SqliteWebhookStore::Find(WebhookId id) {
  std::vector<Webhook> rows = session_->ReadAll(kSelectWebhook, &WebhookFromRow, id);
  if (rows.empty()) return std::nullopt;
  return std::move(rows.front());
}

bool SqliteWebhookStore::Delete(WebhookId id, TimePoint at) {
  return session_->Atomically([&](SqliteConnection& connection) {
    connection.Prepare(kDeleteWebhook).Bind(1, id).Bind(2, at).Run();
    return connection.Changes() == 1;
  });
}

std::size_t SqliteWebhookStore::Enqueue(const std::vector<WebhookEvent>& events, TimePoint at) {
  if (events.empty()) return 0;
  return session_->Atomically([&](SqliteConnection& connection) {
    std::size_t added = 0;
    for (const WebhookEvent& event : events) {
      connection.Prepare(kEnqueueWebhookDeliveries)
          .Bind(1, event.event_id)
          .Bind(2, event.event_type)
          .Bind(3, event.payload)
          .Bind(4, at)
          .Run();
      added += static_cast<std::size_t>(connection.Changes());
    }
    return added;
  });
}

std::vector<WebhookDelivery> SqliteWebhookStore::Deliveries(
    WebhookId id, std::size_t limit, std::optional<WebhookDeliveryId> after) {
  return session_->ReadAll(kSelectWebhookDeliveries, &DeliveryFromRow, id,
                           after.value_or(std::numeric_limits<WebhookDeliveryId>::max()),
                           static_cast<std::int64_t>(limit));
}

std::optional<WebhookDelivery> SqliteWebhookStore::FindDelivery(WebhookId id,
                                                                WebhookDeliveryId delivery) {
  std::vector<WebhookDelivery> rows =
      session_->ReadAll(kSelectWebhookDelivery, &DeliveryFromRow, id, delivery);
  if (rows.empty()) return std::nullopt;
  return std::move(rows.front());
}

bool SqliteWebhookStore::Redeliver(WebhookId id, WebhookDeliveryId delivery, TimePoint at) {
  return session_->Atomically([&](SqliteConnection& connection) {
    connection.Prepare(kRedeliverWebhookDelivery).Bind(1, id).Bind(2, delivery).Bind(3, at).Run();
    return connection.Changes() == 1;
  });
}

}  // namespace docgate
