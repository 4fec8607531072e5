#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/embedded_file.h"

namespace docgate {

// A migration a database records as applied (its schema_migrations row).
struct AppliedMigration {
  std::int64_t version = 0;
  std::string name;
};

// A migration still to apply, in order.
struct PendingMigration {
  std::int64_t version = 0;
  const EmbeddedFile* file = nullptr;
};

// The version of "NNNN_description.sql" (0001_init.sql -> 1). Throws StorageError otherwise.
std::int64_t MigrationVersion(const std::string& name);

// The one rule of every store's migrations: the files' versions strictly increase, and what a
// database records is exactly the first files, name for name (anything else was written by a
// newer or a different docgate). Returns the files after those, to apply in order. Throws
// StorageError with a message naming the offending migration.
std::vector<PendingMigration> PlanMigrations(const std::vector<EmbeddedFile>& known,
                                             const std::vector<AppliedMigration>& applied);

}  // namespace docgate
