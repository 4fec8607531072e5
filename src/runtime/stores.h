#pragma once

#include <functional>
#include <memory>

#include "adapters/pg/pg_config.h"
#include "adapters/sqlite/sqlite_document_store.h"
#include "app/chunk_index.h"
#include "app/document_store.h"
#include "app/inbox_store.h"
#include "app/pool_stats.h"
#include "app/preview_store.h"
#include "runtime/config.h"

namespace docgate {

// The configured database, open and migrated, as one object per storage port (ADR 0006). Each
// pointer owns its store's share of the backend, so the stores stay usable as long as any of them
// is held. Every member is set; the stores are thread-safe.
struct Stores {
  std::shared_ptr<DocumentStore> documents;
  std::shared_ptr<OutboxStore> outbox;
  std::shared_ptr<IdempotencyStore> idempotency;
  std::shared_ptr<InboxStore> inbox;
  std::shared_ptr<PreviewStore> previews;  // the database's; MongoDB's is the pipeline's business
  std::shared_ptr<ChunkIndex> chunks;
  std::function<PoolStats()> pool_stats;  // the connection pool's occupancy, for metrics
};

// Opens the stores of the database DOCGATE_DATABASE_URL names (SQLite or PostgreSQL) and applies
// pending migrations. Throws StorageUnavailable when it cannot, StorageError for a schema it
// refuses.
Stores OpenStores(const Config& config);

// `docgate migrate`: applies pending migrations to the configured database and returns.
// Throws ConfigError for an invalid config, else what OpenStores throws.
void ApplyMigrations(const Config& config);

// The store settings of a Config: its sqlite:// path or postgresql:// URL, pool size, timeouts.
SqliteConfig ToSqliteConfig(const Config& config);
PgConfig ToPgConfig(const Config& config);

}  // namespace docgate
