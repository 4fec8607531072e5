#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/model.h"

struct sqlite3;
struct sqlite3_stmt;

namespace docgate {

class SqliteConnection;

// Every call below that reaches sqlite throws on failure, translated: StorageUnavailable when the
// database cannot serve now (busy or locked beyond the busy timeout, I/O error, disk full, cannot
// open), StorageError for everything else (constraints, misuse, corruption).

// A prepared statement borrowed from its connection's cache for one use. Bind indexes are 1-based
// (?1, ?2, ...), column indexes 0-based. The destructor resets it and gives it back to the cache.
class SqliteStatement {
 public:
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;
  ~SqliteStatement();

  SqliteStatement& Bind(int index, std::int64_t value);
  SqliteStatement& Bind(int index, std::string_view value);
  SqliteStatement& Bind(int index, TimePoint value);
  SqliteStatement& BindNull(int index);
  // `bytes` as a BLOB (Bind of a string_view binds TEXT).
  SqliteStatement& BindBlob(int index, std::string_view bytes);
  template <typename T>
  SqliteStatement& Bind(int index, const std::optional<T>& value) {
    return value ? Bind(index, *value) : BindNull(index);
  }

  // Advances to the next row: true when there is one, false when the statement is done.
  bool Step();
  // Runs a statement that returns no rows.
  void Run();

  bool IsNull(int column) const;
  std::int64_t Int64(int column) const;
  double Double(int column) const;
  // Throws StorageError when the stored value does not fit.
  std::int32_t Int32(int column) const;
  std::string Text(int column) const;
  // A BLOB's bytes (or a TEXT's).
  std::string Blob(int column) const;
  TimePoint Time(int column) const;

 private:
  friend class SqliteConnection;
  SqliteStatement(SqliteConnection& connection, std::string_view sql, sqlite3_stmt* stmt);
  [[noreturn]] void Fail(int code) const;

  SqliteConnection& connection_;
  std::string_view sql_;
  sqlite3_stmt* stmt_;
};

// One sqlite3 handle, opened in multi-thread mode (SQLITE_OPEN_NOMUTEX): one thread uses it at a
// time, which the pool guarantees. Foreign keys are on and the busy timeout set. Not copyable.
class SqliteConnection {
 public:
  // Opens `path`, creating the file if missing. Throws StorageUnavailable when it cannot.
  SqliteConnection(const std::string& path, std::chrono::milliseconds busy_timeout);
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;
  ~SqliteConnection();

  // `sql` must be a constant that outlives the statement (it keys the statement cache).
  SqliteStatement Prepare(std::string_view sql);
  // Runs a parameterless script of one or more statements (migrations, transaction control).
  void Execute(std::string_view script);
  // Rows changed by the last INSERT/UPDATE/DELETE.
  std::int64_t Changes() const;
  bool InTransaction() const;
  // Rolls back the open transaction, if any, without throwing (for destructors); false on failure.
  bool TryRollback() noexcept;
  const std::string& path() const { return path_; }

 private:
  friend class SqliteStatement;
  void GiveBack(std::string_view sql, sqlite3_stmt* stmt) noexcept;
  [[noreturn]] void Fail(int code, std::string_view what) const;

  struct Closer {
    void operator()(sqlite3* db) const noexcept;
  };

  std::string path_;
  std::unique_ptr<sqlite3, Closer> db_;
  std::map<std::string, sqlite3_stmt*, std::less<>> cache_;
};

// BEGIN IMMEDIATE on construction (the database's write lock, waiting up to the busy timeout);
// rolled back by the destructor unless Commit succeeded.
class SqliteWriteTransaction {
 public:
  explicit SqliteWriteTransaction(SqliteConnection& connection);
  SqliteWriteTransaction(const SqliteWriteTransaction&) = delete;
  SqliteWriteTransaction& operator=(const SqliteWriteTransaction&) = delete;
  ~SqliteWriteTransaction();

  void Commit();
  bool committed() const { return committed_; }

 private:
  SqliteConnection& connection_;
  bool committed_ = false;
};

}  // namespace docgate
