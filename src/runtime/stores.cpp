#include "runtime/stores.h"

#include <array>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "adapters/pg/pg_document_store.h"
#include "adapters/sqlite/sqlite_chunk_index.h"
#include "adapters/sqlite/sqlite_document_store.h"
#include "adapters/sqlite/sqlite_idempotency_store.h"
#include "adapters/sqlite/sqlite_inbox_store.h"
#include "adapters/sqlite/sqlite_outbox_store.h"
#include "adapters/sqlite/sqlite_preview_store.h"
#include "adapters/sqlite/sqlite_session.h"

namespace docgate {

SqliteConfig ToSqliteConfig(const Config& config) {
  SqliteConfig sqlite;
  sqlite.path = SqlitePath(config.database.url).value_or(std::string{});
  sqlite.pool_size = config.database.pool_size;
  sqlite.busy_timeout = config.database.busy_timeout;
  sqlite.outbox_claim_ttl = config.relay.claim_ttl;
  return sqlite;
}

PgConfig ToPgConfig(const Config& config) {
  PgConfig pg;
  pg.url = config.database.url;
  pg.pool_size = config.database.pool_size;
  pg.connect_timeout = config.database.connect_timeout;
  pg.statement_timeout = config.database.statement_timeout;
  pg.pool_wait_timeout = config.database.busy_timeout;
  pg.outbox_claim_ttl = config.relay.claim_ttl;
  return pg;
}

void ApplyMigrations(const Config& config) {
  ValidateConfig(config);
  if (IsPostgresUrl(config.database.url)) {
    PgDocumentStore::Migrate(ToPgConfig(config));
  } else {
    SqliteSession::Migrate(ToSqliteConfig(config));
  }
}

Stores OpenSqliteStores(SqliteConfig config) {
  std::vector<std::string_view> statements;
  for (const auto part : {SqliteDocumentStore::Statements(), SqliteOutboxStore::Statements(),
                          SqliteIdempotencyStore::Statements(), SqliteInboxStore::Statements(),
                          SqlitePreviewStore::Statements(), SqliteChunkIndex::Statements()}) {
    statements.insert(statements.end(), part.begin(), part.end());
  }
  auto session = std::make_shared<SqliteSession>(std::move(config), statements);
  Stores stores;
  stores.documents = std::make_shared<SqliteDocumentStore>(session);
  stores.outbox = std::make_shared<SqliteOutboxStore>(session);
  stores.idempotency = std::make_shared<SqliteIdempotencyStore>(session);
  stores.inbox = std::make_shared<SqliteInboxStore>(session);
  stores.previews = std::make_shared<SqlitePreviewStore>(session);
  stores.chunks = std::make_shared<SqliteChunkIndex>(session);
  stores.pool_stats = [session] { return session->pool_stats(); };
  return stores;
}

Stores OpenStores(const Config& config) {
  return IsPostgresUrl(config.database.url) ? OpenPgStores(ToPgConfig(config))
                                            : OpenSqliteStores(ToSqliteConfig(config));
}

}  // namespace docgate
