#include "adapters/pg/pg_migrations.h"

#include <cstdint>
#include <pqxx/pqxx>
#include <string>
#include <string_view>

#include "adapters/pg/pg_errors.h"
#include "adapters/sql/shared_statements.h"
#include "core/error.h"
#include "core/migration_plan.h"

namespace docgate {
namespace {

// Any constant works as long as every docgate uses the same one; this is "docgate" in ASCII.
constexpr std::int64_t kMigrationLockKey = 0x646f6367617465;

constexpr std::string_view kTakeMigrationLock = "SELECT pg_advisory_xact_lock($1)";
constexpr std::string_view kHasMigrationsTable =
    "SELECT to_regclass('schema_migrations') IS NOT NULL";
constexpr std::string_view kCreateMigrationsTable =
    "CREATE TABLE schema_migrations ("
    " version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)";
constexpr std::string_view kSelectApplied = sql::kSelectApplied;
constexpr std::string_view kRecordApplied =
    "INSERT INTO schema_migrations (version, name, applied_at)"
    " VALUES ($1, $2, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)";

}  // namespace

void ApplyPostgresMigrations(pqxx::connection_base& connection,
                             const std::vector<EmbeddedFile>& migrations) {
  pqxx::work tx(connection, "migrate");
  tx.exec_params(std::string(kTakeMigrationLock), kMigrationLockKey);
  if (!tx.exec(std::string(kHasMigrationsTable))[0][0].as<bool>()) {
    tx.exec(std::string(kCreateMigrationsTable));
  }
  std::vector<AppliedMigration> applied;
  for (const auto& row : tx.exec(std::string(kSelectApplied))) {
    applied.push_back({row[0].as<std::int64_t>(), row[1].as<std::string>()});
  }
  for (const PendingMigration& pending : PlanMigrations(migrations, applied)) {
    const std::string name(pending.file->name);
    try {
      tx.exec(std::string(pending.file->content), name);
    } catch (const pqxx::sql_error&) {
      RethrowAsStorageFailure("migration " + name);
    }
    tx.exec_params(std::string(kRecordApplied), pending.version, name);
  }
  tx.commit();
}

}  // namespace docgate
