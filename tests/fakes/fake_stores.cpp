#include "fakes/fake_stores.h"

#include <utility>

#include "fakes/fake_chunk_index.h"
#include "fakes/fake_document_store.h"
#include "fakes/fake_embedding_store.h"
#include "fakes/fake_idempotency_store.h"
#include "fakes/fake_inbox_store.h"
#include "fakes/fake_outbox_store.h"
#include "fakes/fake_preview_store.h"
#include "fakes/fake_session_store.h"
#include "fakes/fake_user_directory.h"
#include "fakes/fake_webhook_store.h"

namespace docgate {
namespace {

FakeStores OpenOn(std::shared_ptr<FakeDatabase> database) {
  FakeStores fakes{database, Stores{}};
  Stores& stores = fakes.stores;
  stores.documents = std::make_shared<FakeDocumentStore>(database);
  stores.outbox = std::make_shared<FakeOutboxStore>(database);
  stores.idempotency = std::make_shared<FakeIdempotencyStore>(database);
  stores.inbox = std::make_shared<FakeInboxStore>(database);
  stores.previews = std::make_shared<FakePreviewStore>(database);
  stores.chunks = std::make_shared<FakeChunkIndex>(database);
  stores.embeddings = std::make_shared<FakeEmbeddingStore>(database);
  stores.users = std::make_shared<FakeUserDirectory>(database);
  stores.sessions = std::make_shared<FakeSessionStore>(database);
  stores.webhooks = std::make_shared<FakeWebhookStore>(database);
  stores.pool_stats = [] { return PoolStats{}; };  // no pool
  return fakes;
}

}  // namespace

FakeStores OpenFakeStores(std::chrono::milliseconds lock_timeout) {
  return OpenOn(std::make_shared<FakeDatabase>(lock_timeout));
}

FakeStores OpenFakeStores(Clock& claim_clock, std::chrono::milliseconds claim_ttl) {
  return OpenOn(std::make_shared<FakeDatabase>(claim_clock, claim_ttl));
}

}  // namespace docgate
