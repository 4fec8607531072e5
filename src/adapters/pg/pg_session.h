#pragma once

// The session layer the PostgreSQL stores share (ADR 0006): the validated config, this instance's
// token, the connection pool with every store's prepared statements, and the three ways a store
// runs SQL on it (Autocommit, Atomically, PgWork), each translating libpqxx's failures into
// StorageUnavailable / StorageError (pg_errors.h).

#include <pqxx/pqxx>

#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "adapters/pg/pg_config.h"
#include "adapters/pg/pg_connection_pool.h"
#include "adapters/pg/pg_errors.h"
#include "adapters/pg/pg_statements.h"
#include "app/pool_stats.h"
#include "core/error.h"

namespace docgate {

// One transaction on a pooled connection: BEGIN at construction, then statements through Run until
// Commit, which gives the connection back at once whatever its outcome; destroyed before that, it
// rolls back (never throws).
class PgWork {
 public:
  explicit PgWork(PgConnectionPool::Lease lease) : lease_(std::move(lease)) {
    work_.emplace(lease_->connection());
  }

  // Runs fn(work), translating its failures (`operation`, and `id` when positive, name it in the
  // message); a connection that broke is discarded. libpqxx 6.4 runs prepared statements on a
  // committed transaction and lets commit() be called twice, so the end of the transaction is
  // tracked here: Run after Commit is a StorageError.
  template <typename Fn>
  auto Run(const char* operation, std::int64_t id, Fn&& fn)
      -> decltype(fn(std::declval<pqxx::work&>())) {
    const std::string what =
        id > 0 ? std::string(operation) + " " + std::to_string(id) : std::string(operation);
    if (!work_) throw StorageError("postgres: " + what + ": the transaction has already ended");
    try {
      return fn(*work_);
    } catch (const std::exception&) {
      if (HandlingConnectionLoss()) lease_->Discard();
      RethrowAsStorageFailure(what);
    }
  }

  void Commit();

 private:
  void End() {
    work_.reset();
    lease_.reset();
  }

  // Declared first, destroyed last: the transaction ends (rollback unless committed) before the
  // connection goes back to the pool. Both are empty once the transaction has ended.
  std::optional<PgConnectionPool::Lease> lease_;
  std::optional<pqxx::work> work_;
};

// Thread-safe. Every store of one database holds it (shared), so it lives as long as any of them.
class PgSession {
 public:
  // Validates `config` (StorageUnavailable naming what is wrong), applies pending migrations
  // (Migrate) and prepares `statements` on every connection the pool opens. Throws like Migrate.
  PgSession(PgConfig config, std::span<const pg_sql::Statement> statements);
  PgSession(const PgSession&) = delete;
  PgSession& operator=(const PgSession&) = delete;
  ~PgSession();

  // `docgate migrate`: applies migrations/postgres in one transaction under a PostgreSQL advisory
  // lock, so that instances starting together migrate exactly once. StorageUnavailable for an
  // invalid config or an unreachable server (the message names host, port and database and libpq's
  // reason, never the password), StorageError for a schema it refuses (written by a newer docgate)
  // or a migration that fails.
  static void Migrate(const PgConfig& config);

  const PgConfig& config() const { return config_; }
  // claimed_by of this instance's outbox claims.
  const std::string& instance_token() const { return instance_token_; }
  // The connection pool's occupancy, for metrics. No I/O.
  PoolStats pool_stats() const { return pool_->Stats(); }
  // SELECT 1; false on any failure, never throws. Waits for a pooled connection at most the
  // shorter of pool_wait_timeout and connect_timeout.
  bool Ping();

  // Runs fn(tx) on a pooled connection in autocommit (one statement, no BEGIN/COMMIT round trips).
  // A connection that served before may have died while idle without the pool's check seeing it
  // yet; when the first attempt finds it gone, a second one runs on a fresh connection. libpq
  // cannot tell a statement that never reached the server from one that committed and lost only
  // its answer, so this is only for reads and for writes that may run twice (each store says why
  // its writes may); other writes go through Atomically.
  template <typename Fn>
  auto Autocommit(const std::string& operation, Fn&& fn) {
    return AutocommitWithin(config_.pool_wait_timeout, operation, std::forward<Fn>(fn));
  }
  template <typename Fn>
  auto AutocommitWithin(std::chrono::milliseconds wait, const std::string& operation, Fn&& fn) {
    for (bool retried = false;; retried = true) {
      PgConnectionPool::Lease lease = pool_->Acquire(wait);
      try {
        pqxx::nontransaction tx(lease.connection());
        return fn(tx);
      } catch (const std::exception&) {
        const bool lost = HandlingConnectionLoss();
        if (lost) lease.Discard();
        if (lost && lease.reused() && !retried) continue;
        RethrowAsStorageFailure(operation);
      }
    }
  }

  // Runs fn(tx) in a transaction of its own on a pooled connection, for writes that must not take
  // effect twice. A connection lost before COMMIT was sent leaves nothing behind (the server rolls
  // back what it never saw committed), so then, on a connection that served before, fn runs once
  // more on a fresh one, like Autocommit; a connection lost during COMMIT leaves the outcome
  // unknown, and that is StorageUnavailable ("outcome unknown"), never a second run.
  template <typename Fn>
  auto Atomically(const std::string& operation, Fn&& fn) {
    for (bool retried = false;; retried = true) {
      PgConnectionPool::Lease lease = pool_->Acquire(config_.pool_wait_timeout);
      bool committing = false;
      try {
        pqxx::work tx(lease.connection());
        auto result = fn(tx);
        committing = true;
        tx.commit();
        return result;
      } catch (const std::exception&) {
        const bool lost = HandlingConnectionLoss();
        if (lost) lease.Discard();
        if (lost && !committing && lease.reused() && !retried) continue;
        RethrowAsStorageFailure(operation);
      }
    }
  }

  // A transaction object Tx (constructed from a pooled connection's lease, on which it opens a
  // PgWork) on a pooled connection. BEGIN is the first
  // statement on the connection; if it finds a reused connection dead, nothing has happened yet
  // and a fresh connection is tried once.
  template <typename Tx>
  std::unique_ptr<Tx> Begin() {
    for (bool retried = false;; retried = true) {
      PgConnectionPool::Lease lease = pool_->Acquire();
      const bool may_retry = lease.reused() && !retried;
      try {
        return std::make_unique<Tx>(std::move(lease));
      } catch (const std::exception&) {
        if (may_retry && HandlingConnectionLoss()) continue;
        RethrowAsStorageFailure("begin transaction");
      }
    }
  }

 private:
  PgConfig config_;
  std::string instance_token_;
  std::unique_ptr<PgConnectionPool> pool_;
};

}  // namespace docgate
