#include "adapters/sqlite/sqlite_migrations.h"

#include <cstdint>
#include <string>
#include <string_view>

#include "adapters/sql/shared_statements.h"
#include "core/error.h"
#include "core/migration_plan.h"

namespace docgate {
namespace {

constexpr std::string_view kHasMigrationsTable =
    "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'";
constexpr std::string_view kCountOtherTables =
    "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND substr(name, 1, 7) <> 'sqlite_'";
constexpr std::string_view kCreateMigrationsTable =
    "CREATE TABLE schema_migrations ("
    " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT";
constexpr std::string_view kSelectApplied = sql::kSqlite<sql::kSelectApplied>;
// Milliseconds since the epoch, the unit of every time column.
constexpr std::string_view kRecordApplied =
    "INSERT INTO schema_migrations (version, name, applied_at)"
    " VALUES (?1, ?2, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))";

std::int64_t CountOf(SqliteConnection& connection, std::string_view sql) {
  auto stmt = connection.Prepare(sql);
  stmt.Step();
  return stmt.Int64(0);
}

std::vector<AppliedMigration> AppliedMigrations(SqliteConnection& connection) {
  std::vector<AppliedMigration> applied;
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

}  // namespace

void ApplySqliteMigrations(SqliteConnection& connection,
                           const std::vector<EmbeddedFile>& migrations) {
  SqliteWriteTransaction tx(connection);
  EnsureMigrationsTable(connection);
  for (const PendingMigration& pending :
       PlanMigrations(migrations, AppliedMigrations(connection))) {
    connection.Execute(pending.file->content);
    connection.Prepare(kRecordApplied).Bind(1, pending.version).Bind(2, pending.file->name).Run();
  }
  tx.Commit();
}

}  // namespace docgate
