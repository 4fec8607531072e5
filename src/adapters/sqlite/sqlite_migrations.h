#pragma once

#include <vector>

#include "adapters/sqlite/sqlite_connection.h"
#include "core/embedded_file.h"

namespace docgate {

// migrations/sqlite/NNNN_*.sql, compiled in by cmake/EmbedFiles.cmake, sorted by name.
extern const std::vector<EmbeddedFile> kSqliteMigrations;

// Brings the database to the newest of `migrations` in one BEGIN IMMEDIATE transaction (so that
// processes starting together apply each migration once), recording each in schema_migrations
// (version, name, applied_at). Refuses, with StorageError and a message that says why, a database
// that is not docgate's (tables but no schema_migrations), one that records a migration this
// binary does not have (written by a newer docgate) or under another name, and malformed names.
void ApplySqliteMigrations(SqliteConnection& connection,
                           const std::vector<EmbeddedFile>& migrations);

}  // namespace docgate
