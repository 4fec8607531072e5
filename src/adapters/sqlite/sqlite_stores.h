#pragma once

#include "adapters/sqlite/sqlite_config.h"
#include "app/stores.h"

namespace docgate {

// The Stores of one SQLite file: one object per port (SqliteDocumentStore, SqliteOutboxStore,
// SqliteIdempotencyStore, SqliteInboxStore, SqlitePreviewStore, SqliteChunkIndex, ...) on one
// SqliteSession, so one pool, one writer slot and one instance (outbox claims of its own). Each
// store holds the session, so any of them keeps the pool alive. Throws like SqliteSession's
// constructor.
Stores OpenSqliteStores(SqliteConfig config);

}  // namespace docgate
