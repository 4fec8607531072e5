#pragma once

#include "adapters/pg/pg_config.h"
#include "adapters/sqlite/sqlite_config.h"
#include "adapters/sqlite/sqlite_stores.h"
#include "app/stores.h"
#include "runtime/config.h"

namespace docgate {

// Opens the Stores (app/stores.h) of the database DOCGATE_DATABASE_URL names (SQLite or
// PostgreSQL: OpenSqliteStores, OpenPgStores) and applies pending migrations. Throws
// StorageUnavailable when it cannot, StorageError for a schema it refuses.
Stores OpenStores(const Config& config);

// `docgate migrate`: applies pending migrations to the configured database and returns.
// Throws ConfigError for an invalid config, else what OpenStores throws.
void ApplyMigrations(const Config& config);

// The store settings of a Config: its sqlite:// path or postgresql:// URL, pool size, timeouts.
SqliteConfig ToSqliteConfig(const Config& config);
PgConfig ToPgConfig(const Config& config);

}  // namespace docgate
