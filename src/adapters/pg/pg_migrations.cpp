#include "adapters/pg/pg_migrations.h"

#include <charconv>
#include <cstdint>
#include <pqxx/pqxx>
#include <string>
#include <string_view>

#include "adapters/pg/pg_errors.h"
#include "core/error.h"

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
constexpr std::string_view kSelectApplied =
    "SELECT version, name FROM schema_migrations ORDER BY version";
constexpr std::string_view kRecordApplied =
    "INSERT INTO schema_migrations (version, name, applied_at)"
    " VALUES ($1, $2, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)";

// "0001_init.sql" -> 1; anything not NNNN_description.sql is refused.
std::int64_t VersionOf(std::string_view name) {
  std::int64_t version = 0;
  const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), version);
  const bool well_formed = error == std::errc{} && version > 0 && end != name.data() &&
                           end < name.data() + name.size() && *end == '_' &&
                           name.ends_with(".sql") && name.front() != '-' && name.front() != '+';
  if (!well_formed) {
    throw StorageError("postgres: migration '" + std::string(name) +
                       "' is not named NNNN_description.sql");
  }
  return version;
}

}  // namespace

void ApplyPostgresMigrations(pqxx::connection_base& connection,
                             const std::vector<EmbeddedFile>& migrations) {
  std::int64_t previous = 0;
  for (const EmbeddedFile& file : migrations) {
    if (VersionOf(file.name) <= previous) {
      throw StorageError("postgres: migration versions must increase: " + std::string(file.name));
    }
    previous = VersionOf(file.name);
  }

  pqxx::work tx(connection, "migrate");
  tx.exec_params(std::string(kTakeMigrationLock), kMigrationLockKey);
  if (!tx.exec(std::string(kHasMigrationsTable))[0][0].as<bool>()) {
    tx.exec(std::string(kCreateMigrationsTable));
  }
  // The recorded migrations must be exactly the first ones this binary knows, name for name.
  const pqxx::result applied = tx.exec(std::string(kSelectApplied));
  for (std::size_t i = 0; i < applied.size(); ++i) {
    const auto version = applied[i][0].as<std::int64_t>();
    const auto name = applied[i][1].as<std::string>();
    const std::string recorded = std::to_string(version) + " (" + name + ")";
    if (i >= migrations.size()) {
      throw StorageError("postgres: the database records migration " + recorded +
                         ", which this docgate does not have: it was written by a newer docgate");
    }
    if (VersionOf(migrations[i].name) != version || migrations[i].name != name) {
      throw StorageError("postgres: the database records migration " + recorded +
                         " where this docgate has " + std::string(migrations[i].name));
    }
  }
  for (std::size_t i = applied.size(); i < migrations.size(); ++i) {
    const EmbeddedFile& file = migrations[i];
    try {
      tx.exec(std::string(file.content), std::string(file.name));
    } catch (const pqxx::sql_error&) {
      RethrowAsStorageFailure("migration " + std::string(file.name));
    }
    tx.exec_params(std::string(kRecordApplied), VersionOf(file.name), std::string(file.name));
  }
  tx.commit();
}

}  // namespace docgate
