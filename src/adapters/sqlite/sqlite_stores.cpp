#include "adapters/sqlite/sqlite_stores.h"

#include <memory>
#include <utility>

#include "adapters/sqlite/sqlite_chunk_index.h"
#include "adapters/sqlite/sqlite_document_store.h"
#include "adapters/sqlite/sqlite_embedding_store.h"
#include "adapters/sqlite/sqlite_idempotency_store.h"
#include "adapters/sqlite/sqlite_inbox_store.h"
#include "adapters/sqlite/sqlite_outbox_store.h"
#include "adapters/sqlite/sqlite_preview_store.h"
#include "adapters/sqlite/sqlite_session.h"
#include "adapters/sqlite/sqlite_session_store.h"
#include "adapters/sqlite/sqlite_user_directory.h"
#include "adapters/sqlite/sqlite_webhook_store.h"

namespace docgate {

Stores OpenSqliteStores(SqliteConfig config) {
  auto session = std::make_shared<SqliteSession>(std::move(config));
  Stores stores;
  stores.documents = std::make_shared<SqliteDocumentStore>(session);
  stores.outbox = std::make_shared<SqliteOutboxStore>(session);
  stores.idempotency = std::make_shared<SqliteIdempotencyStore>(session);
  stores.inbox = std::make_shared<SqliteInboxStore>(session);
  stores.previews = std::make_shared<SqlitePreviewStore>(session);
  stores.chunks = std::make_shared<SqliteChunkIndex>(session);
  stores.embeddings = std::make_shared<SqliteEmbeddingStore>(session);
  stores.users = std::make_shared<SqliteUserDirectory>(session);
  stores.sessions = std::make_shared<SqliteSessionStore>(session);
  stores.webhooks = std::make_shared<SqliteWebhookStore>(session);
  stores.pool_stats = [session] { return session->pool_stats(); };
  return stores;
}

}  // namespace docgate
