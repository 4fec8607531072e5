#pragma once

#include <memory>

#include "app/ports/store_transaction.h"

namespace docgate {

class PgSession;

// A transition's unit of work on PostgreSQL (StoreTransaction), composed of the ports' writers over
// one PgWork: the documents' and reviews' (pg_store_transaction.cpp), the outbox's
// (PgOutboxStore::Append), the idempotency keys' (PgIdempotencyStore::Complete). Rows are locked
// with SELECT ... FOR UPDATE; see PgDocumentStore for the errors.
std::unique_ptr<StoreTransaction> BeginPgStoreTransaction(PgSession& session);

}  // namespace docgate
