#pragma once

#include <vector>

#include "adapters/pg/pg_config.h"
#include "adapters/pg/pg_statements.h"
#include "app/stores.h"

namespace docgate {

// Every statement the PostgreSQL stores run, for their shared PgSession to prepare.
std::vector<pg_sql::Statement> PgStatementsOfEveryStore();

// The Stores of a PostgreSQL database: one object per port (PgDocumentStore, PgOutboxStore,
// PgIdempotencyStore, PgInboxStore, PgPreviewStore, PgChunkIndex, ...) on one PgSession, so one
// pool and one instance (outbox claims of its own). Each store holds the session, so any of them
// keeps the pool alive. Applies pending migrations first (PgSession::Migrate). Throws
// StorageUnavailable for an invalid config or URL and when the server cannot be reached (the
// message names host, port and database and libpq's reason, never the password), StorageError for
// a schema it refuses (written by a newer docgate) or a migration that fails.
Stores OpenPgStores(PgConfig config);

}  // namespace docgate
