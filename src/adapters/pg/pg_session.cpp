#include "adapters/pg/pg_session.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "adapters/pg/pg_chunk_index.h"
#include "adapters/pg/pg_migrations.h"
#include "core/instance_token.h"

namespace docgate {
namespace {

// Refused like an unreachable server: the store cannot serve with it.
PgConfig Validated(PgConfig config) {
  const auto refuse = [](const std::string& why) {
    throw StorageUnavailable("postgres: invalid configuration: " + why);
  };
  if (config.url.empty()) refuse("url is empty");
  if (config.pool_size < 1) refuse("pool_size must be at least 1");
  if (config.connect_timeout.count() < 1) refuse("connect_timeout must be positive");
  if (config.statement_timeout.count() < 1) refuse("statement_timeout must be positive");
  if (config.pool_wait_timeout.count() < 0) refuse("pool_wait_timeout must not be negative");
  if (config.outbox_claim_ttl.count() < 1) refuse("outbox_claim_ttl must be positive");
  return config;
}

}  // namespace

void PgWork::Commit() {
  try {
    Run("commit", 0, [](pqxx::work& work) { work.commit(); });
  } catch (const std::exception&) {
    End();
    throw;
  }
  End();
}

PgSession::PgSession(PgConfig config, std::span<const pg_sql::Statement> statements)
    : config_(Validated(std::move(config))), instance_token_(NewInstanceToken()) {
  Migrate(config_);
  // Prepared when the connection opens (the schema exists by then), so that a statement's first
  // use is never also its PREPARE round trip, possibly on a connection that has meanwhile died.
  std::vector<pg_sql::Statement> prepared{pg_sql::kPing};  // the session's own (Ping)
  prepared.insert(prepared.end(), statements.begin(), statements.end());
  pool_ = std::make_unique<PgConnectionPool>(
      config_, [prepared = std::move(prepared)](pqxx::connection_base& connection) {
        for (const pg_sql::Statement& statement : prepared) {
          connection.prepare(statement.name, statement.sql);
          connection.prepare_now(statement.name);
        }
      });
}

PgSession::~PgSession() = default;

void PgSession::Migrate(const PgConfig& config) {
  PgConfig single = Validated(config);
  single.pool_size = 1;
  PgConnectionPool pool(single, nullptr);
  PgConnectionPool::Lease lease = pool.Acquire();
  try {
    ApplyPostgresMigrations(lease.connection(), kPostgresMigrations);
    const std::int64_t analysed = PgChunkIndex::AnalyseUnanalysedChunks(lease.connection());
    if (analysed > 0) spdlog::info("indexed {} chunks with docgate's text analyzer", analysed);
  } catch (const std::exception&) {
    RethrowAsStorageFailure("migrate " + pool.description());
  }
}

bool PgSession::Ping() {
  try {
    const auto wait = std::min(config_.pool_wait_timeout, config_.connect_timeout);
    return AutocommitWithin(wait, "ping", [](pqxx::transaction_base& tx) {
      return !tx.exec_prepared(pg_sql::kPing.name).empty();
    });
  } catch (const std::exception&) {
    // Readiness needs only the answer; reporting the cause is the next real call's job.
    return false;
  }
}

}  // namespace docgate
