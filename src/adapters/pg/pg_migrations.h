#pragma once

#include <vector>

#include "core/embedded_file.h"

namespace pqxx {
class connection_base;
}  // namespace pqxx

namespace docgate {

// migrations/postgres/NNNN_*.sql, compiled in by cmake/EmbedFiles.cmake, sorted by name.
extern const std::vector<EmbeddedFile> kPostgresMigrations;

// Brings the database to the newest of `migrations` in one transaction that first takes
// pg_advisory_xact_lock on a constant key, so that instances starting together wait for each other
// and every migration is applied exactly once; each is recorded in schema_migrations (version,
// name, applied_at), which this creates when missing. Throws StorageError, saying why, for a
// database that records a migration this binary does not have (written by a newer docgate) or under
// another name, and for malformed migration names; libpqxx exceptions pass through.
void ApplyPostgresMigrations(pqxx::connection_base& connection,
                             const std::vector<EmbeddedFile>& migrations);

}  // namespace docgate
