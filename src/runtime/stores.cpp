#include "runtime/stores.h"

#include <utility>

#include "adapters/pg/pg_document_store.h"

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
    SqliteDocumentStore store(ToSqliteConfig(config));
  }
}

namespace {

// One backend object serves every port: each pointer shares its ownership.
template <typename Backend, typename BackendConfig>
Stores Open(BackendConfig backend_config) {
  auto backend = std::make_shared<Backend>(std::move(backend_config));
  Stores stores;
  stores.documents = backend;
  stores.outbox = backend;
  stores.idempotency = backend;
  stores.inbox = backend;
  stores.previews = backend;
  stores.chunks = backend;
  stores.pool_stats = [backend] { return backend->pool_stats(); };
  return stores;
}

}  // namespace

Stores OpenStores(const Config& config) {
  return IsPostgresUrl(config.database.url) ? Open<PgDocumentStore>(ToPgConfig(config))
                                            : Open<SqliteDocumentStore>(ToSqliteConfig(config));
}

}  // namespace docgate
