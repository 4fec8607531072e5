#include "adapters/pg/pg_stores.h"

#include <memory>
#include <utility>

#include "adapters/pg/pg_chunk_index.h"
#include "adapters/pg/pg_document_store.h"
#include "adapters/pg/pg_embedding_store.h"
#include "adapters/pg/pg_idempotency_store.h"
#include "adapters/pg/pg_inbox_store.h"
#include "adapters/pg/pg_outbox_store.h"
#include "adapters/pg/pg_preview_store.h"
#include "adapters/pg/pg_session.h"
#include "adapters/pg/pg_session_store.h"
#include "adapters/pg/pg_user_directory.h"
#include "adapters/pg/pg_webhook_store.h"

namespace docgate {

std::vector<pg_sql::Statement> PgStatementsOfEveryStore() {
  std::vector<pg_sql::Statement> all;
  for (const auto part :
       {PgDocumentStore::Statements(), PgOutboxStore::Statements(),
        PgIdempotencyStore::Statements(), PgPreviewStore::Statements(), PgChunkIndex::Statements(),
        PgInboxStore::Statements(), PgEmbeddingStore::Statements(), PgUserDirectory::Statements(),
        PgSessionStore::Statements(), PgWebhookStore::Statements()}) {
    all.insert(all.end(), part.begin(), part.end());
  }
  return all;
}

Stores OpenPgStores(PgConfig config) {
  auto session = std::make_shared<PgSession>(std::move(config), PgStatementsOfEveryStore());
  Stores stores;
  stores.documents = std::make_shared<PgDocumentStore>(session);
  stores.outbox = std::make_shared<PgOutboxStore>(session);
  stores.idempotency = std::make_shared<PgIdempotencyStore>(session);
  stores.inbox = std::make_shared<PgInboxStore>(session);
  stores.previews = std::make_shared<PgPreviewStore>(session);
  stores.chunks = std::make_shared<PgChunkIndex>(session);
  stores.embeddings = std::make_shared<PgEmbeddingStore>(session);
  stores.users = std::make_shared<PgUserDirectory>(session);
  stores.sessions = std::make_shared<PgSessionStore>(session);
  stores.webhooks = std::make_shared<PgWebhookStore>(session);
  stores.pool_stats = [session] { return session->pool_stats(); };
  return stores;
}

}  // namespace docgate
