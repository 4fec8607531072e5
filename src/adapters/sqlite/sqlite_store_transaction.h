#pragma once

#include <memory>

#include "app/ports/store_transaction.h"

namespace docgate {

class SqliteSession;

// A transition's unit of work on SQLite (StoreTransaction): BEGIN IMMEDIATE on one pooled
// connection, composed of the ports' writers over one SqliteWork: the documents' and reviews'
// (sqlite_store_transaction.cpp), the outbox's (SqliteOutboxStore::Append), the idempotency keys'
// (SqliteIdempotencyStore::Complete). See SqliteDocumentStore for the errors.
std::unique_ptr<StoreTransaction> BeginSqliteStoreTransaction(SqliteSession& session);

}  // namespace docgate
