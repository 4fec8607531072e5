#pragma once

#include <functional>
#include <memory>

#include "app/pool_stats.h"
#include "app/ports/chunk_index.h"
#include "app/ports/document_store.h"
#include "app/ports/embedding_store.h"
#include "app/ports/idempotency_store.h"
#include "app/ports/inbox_store.h"
#include "app/ports/outbox_store.h"
#include "app/ports/preview_store.h"
#include "app/ports/session_store.h"
#include "app/ports/user_directory.h"
#include "app/ports/webhook_store.h"

namespace docgate {

// One database, open and migrated, as one object per storage port (ADR 0006). Each pointer owns
// its store's share of what the stores of one database have in common (the connection pool), so
// the stores stay usable as long as any of them is held. Every member is set; the stores are
// thread-safe. Each backend has its opener (OpenPgStores, OpenSqliteStores; OpenFakeStores
// for the tests).
struct Stores {
  std::shared_ptr<DocumentStore> documents;
  std::shared_ptr<OutboxStore> outbox;
  std::shared_ptr<IdempotencyStore> idempotency;
  std::shared_ptr<InboxStore> inbox;
  std::shared_ptr<PreviewStore> previews;  // the database's; MongoDB's is the pipeline's business
  std::shared_ptr<ChunkIndex> chunks;
  std::shared_ptr<EmbeddingStore> embeddings;
  std::shared_ptr<UserDirectory> users;
  std::shared_ptr<SessionStore> sessions;
  std::shared_ptr<WebhookStore> webhooks;
  std::function<PoolStats()> pool_stats;  // the connection pool's occupancy, for metrics
};

}  // namespace docgate
