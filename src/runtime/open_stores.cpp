#include "runtime/open_stores.h"

#include <string>
#include <utility>

#include "adapters/pg/pg_session.h"
#include "adapters/pg/pg_stores.h"
#include "adapters/sqlite/sqlite_session.h"
#include "adapters/sqlite/sqlite_stores.h"

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
    PgSession::Migrate(ToPgConfig(config));
  } else {
    SqliteSession::Migrate(ToSqliteConfig(config));
  }
}

Stores OpenStores(const Config& config) {
  return IsPostgresUrl(config.database.url) ? OpenPgStores(ToPgConfig(config))
                                            : OpenSqliteStores(ToSqliteConfig(config));
}

}  // namespace docgate
