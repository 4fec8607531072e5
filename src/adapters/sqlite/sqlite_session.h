#pragma once

// The session layer the SQLite stores share (ADR 0006): the file's connection pool with its writer
// slot, this instance's token, and the ways a store runs SQL on it: Autocommit (a read on any
// connection), AutocommitWrite (one statement with the writer slot), Atomically and Begin (BEGIN
// IMMEDIATE with the writer slot). SqliteConnection translates sqlite's failures:
// StorageUnavailable when the database cannot serve now (busy or locked beyond busy_timeout, I/O
// error, disk full, cannot open), StorageError for everything else (constraints, misuse,
// corruption).

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "adapters/sqlite/sqlite_config.h"
#include "adapters/sqlite/sqlite_connection.h"
#include "adapters/sqlite/sqlite_connection_pool.h"
#include "adapters/sqlite/sqlite_rows.h"
#include "app/pool_stats.h"

namespace docgate {

// Creates `directory` and its missing parents for the owner alone (0700): the data directory of a
// SQLite database holds every document (and, beside it, the generated JWT secret). Directories that
// exist keep their mode. Throws StorageError naming the directory it cannot create.
void CreatePrivateDirectories(const std::filesystem::path& directory);

// Below this much free space on the database's file system, the session reports itself not ready.
inline constexpr std::uintmax_t kMinFreeDiskBytes = 4 * 1024 * 1024;

// One write transaction: the writer slot and a pooled connection, under BEGIN IMMEDIATE from
// construction to Commit, which gives both back at once; destroyed before that, it rolls back.
class SqliteWork {
 public:
  explicit SqliteWork(SqliteConnectionPool::Lease lease) : lease_(std::move(lease)) {
    tx_.emplace(**lease_);
  }

  // The connection, as long as the transaction is still open; StorageError after Commit.
  SqliteConnection& Open() {
    if (!tx_) throw StorageError("sqlite: the transaction is already committed");
    return **lease_;
  }

  void Commit() {
    Open();
    tx_->Commit();
    tx_.reset();
    lease_.reset();
  }

 private:
  std::optional<SqliteConnectionPool::Lease> lease_;
  // After lease_: rolled back before the connection goes back.
  std::optional<SqliteWriteTransaction> tx_;
};

// Thread-safe. Every store of one file holds it (shared), so it lives as long as any of them.
class SqliteSession {
 public:
  // Opens the pool, turns on WAL, the busy timeout and foreign keys, applies pending migrations
  // (recorded in schema_migrations). Each connection compiles a statement on its first use and
  // keeps it. Throws StorageUnavailable with a message naming the file and the cause when it
  // cannot: an invalid config, an unopenable path, not a database, not docgate's database, or a
  // schema written by a newer docgate.
  explicit SqliteSession(SqliteConfig config);
  SqliteSession(const SqliteSession&) = delete;
  SqliteSession& operator=(const SqliteSession&) = delete;
  ~SqliteSession();

  // `docgate migrate`: opens the file as the constructor does (migrations included) and closes it.
  static void Migrate(const SqliteConfig& config);

  const SqliteConfig& config() const { return config_; }
  // claimed_by of this instance's outbox claims.
  const std::string& instance_token() const { return instance_token_; }
  // The connection pool's occupancy, for metrics. No I/O.
  PoolStats pool_stats() const { return pool_->Stats(); }
  // True when a query answers and the database's file system has at least kMinFreeDiskBytes free:
  // a full disk still serves reads but fails every write. Never throws.
  bool Ping();

  // Any pooled connection, for reads in autocommit (they see committed data and never wait for
  // the writer). StorageUnavailable after busy_timeout.
  SqliteConnectionPool::Lease Read() { return pool_->Acquire(); }
  // The writer slot, then a connection: for one autocommit write, or a transaction of the
  // caller's (SqliteWriteTransaction). StorageUnavailable after busy_timeout.
  SqliteConnectionPool::Lease Write() { return pool_->AcquireWriter(); }

  // Runs fn(connection) under BEGIN IMMEDIATE with the writer slot and commits what it did.
  template <typename Fn>
  auto Atomically(Fn&& fn) {
    SqliteConnectionPool::Lease lease = Write();
    SqliteWriteTransaction tx(*lease);
    if constexpr (std::is_void_v<decltype(fn(*lease))>) {
      fn(*lease);
      tx.Commit();
    } else {
      auto result = fn(*lease);
      tx.Commit();
      return result;
    }
  }

  // A transaction object Tx, constructed from a writer lease (on which it opens a SqliteWork).
  template <typename Tx>
  std::unique_ptr<Tx> Begin() {
    return std::make_unique<Tx>(Write());
  }

  // Runs `sql` with `params` bound as ?1, ?2, ... on a pooled connection in autocommit: every
  // row, decoded.
  template <typename T, typename... Params>
  std::vector<T> ReadAll(std::string_view sql, T (*decode)(const SqliteStatement&),
                         const Params&... params) {
    SqliteConnectionPool::Lease lease = Read();
    SqliteStatement stmt = lease->Prepare(sql);
    int index = 0;
    (stmt.Bind(++index, params), ...);
    return sqlite_rows::AllRows(stmt, decode);
  }

 private:
  SqliteConfig config_;
  std::string instance_token_;
  std::filesystem::path directory_;  // where the database file lives, for the free-space check
  std::unique_ptr<SqliteConnectionPool> pool_;
};

}  // namespace docgate
