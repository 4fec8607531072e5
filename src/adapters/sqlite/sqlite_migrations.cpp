#include "adapters/sqlite/sqlite_migrations.h"

#include <cstdint>
#include <string>
#include <string_view>

#include "core/error.h"

namespace docgate {
namespace {

constexpr std::string_view kHasMigrationsTable =
    "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'";
constexpr std::string_view kCountOtherTables =
    "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND substr(name, 1, 7) <> 'sqlite_'";
constexpr std::string_view kCreateMigrationsTable =
    "CREATE TABLE schema_migrations ("
    " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT";
constexpr std::string_view kSelectApplied =
    "SELECT version, name FROM schema_migrations ORDER BY version";
// Milliseconds since the epoch, the unit of every time column.
constexpr std::string_view kRecordApplied =
    "INSERT INTO schema_migrations (version, name, applied_at)"
    " VALUES (?1, ?2, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))";

struct Migration {
  std::int64_t version = 0;
  std::string name;
};

// "0001_init.sql" -> 1.
std::int64_t VersionOf(std::string_view name) {
  std::int64_t version = 0;
  std::size_t digits = 0;
  while (digits < name.size() && digits < 9 && name[digits] >= '0' && name[digits] <= '9') {
    version = version * 10 + (name[digits] - '0');
    ++digits;
  }
  if (digits == 0 || digits >= name.size() || name[digits] != '_' || version == 0) {
    throw StorageError("migration '" + std::string(name) + "' is not named NNNN_description.sql");
  }
  return version;
}

std::int64_t CountOf(SqliteConnection& connection, std::string_view sql) {
  auto stmt = connection.Prepare(sql);
  stmt.Step();
  return stmt.Int64(0);
}

std::vector<Migration> AppliedMigrations(SqliteConnection& connection) {
  std::vector<Migration> applied;
  auto stmt = connection.Prepare(kSelectApplied);
  while (stmt.Step()) applied.push_back({stmt.Int64(0), stmt.Text(1)});
  return applied;
}

void EnsureMigrationsTable(SqliteConnection& connection) {
  if (CountOf(connection, kHasMigrationsTable) > 0) return;
  if (CountOf(connection, kCountOtherTables) > 0) {
    throw StorageError(connection.path() +
                       " is not a docgate database: it has tables but no schema_migrations");
  }
  connection.Execute(kCreateMigrationsTable);
}

// What is recorded must be exactly the first migrations this binary knows, name for name.
void CheckApplied(const std::vector<Migration>& applied, const std::vector<EmbeddedFile>& known) {
  for (std::size_t i = 0; i < applied.size(); ++i) {
    const Migration& recorded = applied[i];
    if (i >= known.size() || VersionOf(known[i].name) > recorded.version) {
      throw StorageError("the database records migration " + std::to_string(recorded.version) +
                         " (" + recorded.name + ") which this docgate does not have; it was " +
                         "written by a newer docgate");
    }
    if (VersionOf(known[i].name) != recorded.version || known[i].name != recorded.name) {
      throw StorageError("the database records migration " + std::to_string(recorded.version) +
                         " (" + recorded.name + ") where this docgate has " +
                         std::string(known[i].name));
    }
  }
}

}  // namespace

void ApplySqliteMigrations(SqliteConnection& connection,
                           const std::vector<EmbeddedFile>& migrations) {
  std::int64_t previous = 0;
  for (const EmbeddedFile& file : migrations) {
    const std::int64_t version = VersionOf(file.name);
    if (version <= previous) {
      throw StorageError("migration versions must increase: " + std::string(file.name));
    }
    previous = version;
  }
  SqliteWriteTransaction tx(connection);
  EnsureMigrationsTable(connection);
  const std::vector<Migration> applied = AppliedMigrations(connection);
  CheckApplied(applied, migrations);
  for (std::size_t i = applied.size(); i < migrations.size(); ++i) {
    const EmbeddedFile& file = migrations[i];
    connection.Execute(file.content);
    connection.Prepare(kRecordApplied).Bind(1, VersionOf(file.name)).Bind(2, file.name).Run();
  }
  tx.Commit();
}

}  // namespace docgate
