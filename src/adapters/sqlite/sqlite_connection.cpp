#include "adapters/sqlite/sqlite_connection.h"

#include <sqlite3.h>

#include <limits>
#include <utility>

#include "adapters/sqlite/sqlite_bm25.h"
#include "adapters/sqlite/sqlite_tokenizer.h"
#include "core/error.h"

namespace docgate {
namespace {

constexpr std::string_view kBeginImmediate = "BEGIN IMMEDIATE";
constexpr std::string_view kCommit = "COMMIT";
constexpr std::string_view kEnableForeignKeys = "PRAGMA foreign_keys = ON";

bool IsUnavailable(int code) {
  switch (code & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_CANTOPEN:
    case SQLITE_PROTOCOL:
      return true;
    default:
      return false;
  }
}

// Error messages name the statement by its opening words; never by its bound values.
std::string_view Abbreviated(std::string_view sql) {
  constexpr std::size_t kMax = 60;
  return sql.size() <= kMax ? sql : sql.substr(0, kMax);
}

[[noreturn]] void ThrowSqliteError(int code, std::string_view message, std::string_view what) {
  std::string text = "sqlite: ";
  text.append(what).append(": ").append(message);
  text.append(" (code ").append(std::to_string(code)).append(")");
  if (IsUnavailable(code)) throw StorageUnavailable(text);
  throw StorageError(text);
}

}  // namespace

SqliteStatement::SqliteStatement(SqliteConnection& connection, std::string_view sql,
                                 sqlite3_stmt* stmt)
    : connection_(connection), sql_(sql), stmt_(stmt) {}

SqliteStatement::~SqliteStatement() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  connection_.GiveBack(sql_, stmt_);
}

void SqliteStatement::Fail(int code) const { connection_.Fail(code, Abbreviated(sql_)); }

SqliteStatement& SqliteStatement::Bind(int index, std::int64_t value) {
  if (const int rc = sqlite3_bind_int64(stmt_, index, value); rc != SQLITE_OK) Fail(rc);
  return *this;
}

SqliteStatement& SqliteStatement::Bind(int index, std::string_view value) {
  // SQLite binds a null pointer as NULL: an empty view without data is still the text "".
  const char* text = value.data() != nullptr ? value.data() : "";
  const int rc =
      sqlite3_bind_text64(stmt_, index, text, value.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  if (rc != SQLITE_OK) Fail(rc);
  return *this;
}

SqliteStatement& SqliteStatement::Bind(int index, TimePoint value) {
  return Bind(index, static_cast<std::int64_t>(value.time_since_epoch().count()));
}

SqliteStatement& SqliteStatement::BindBlob(int index, std::string_view bytes) {
  const int rc = sqlite3_bind_blob64(stmt_, index, bytes.data(), bytes.size(), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) Fail(rc);
  return *this;
}

SqliteStatement& SqliteStatement::BindNull(int index) {
  if (const int rc = sqlite3_bind_null(stmt_, index); rc != SQLITE_OK) Fail(rc);
  return *this;
}

bool SqliteStatement::Step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  Fail(rc);
}

void SqliteStatement::Run() {
  while (Step()) {
  }
}

bool SqliteStatement::IsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

std::int64_t SqliteStatement::Int64(int column) const {
  return sqlite3_column_int64(stmt_, column);
}

double SqliteStatement::Double(int column) const { return sqlite3_column_double(stmt_, column); }

std::int32_t SqliteStatement::Int32(int column) const {
  const std::int64_t value = Int64(column);
  if (value < std::numeric_limits<std::int32_t>::min() ||
      value > std::numeric_limits<std::int32_t>::max()) {
    throw StorageError("sqlite: column " + std::string(sqlite3_column_name(stmt_, column)) +
                       " holds " + std::to_string(value) + ", out of 32-bit range");
  }
  return static_cast<std::int32_t>(value);
}

std::string SqliteStatement::Text(int column) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  const int size = sqlite3_column_bytes(stmt_, column);
  return text == nullptr ? std::string() : std::string(text, static_cast<std::size_t>(size));
}

std::string SqliteStatement::Blob(int column) const {
  const auto* bytes = static_cast<const char*>(sqlite3_column_blob(stmt_, column));
  const int size = sqlite3_column_bytes(stmt_, column);
  return bytes == nullptr ? std::string() : std::string(bytes, static_cast<std::size_t>(size));
}

TimePoint SqliteStatement::Time(int column) const {
  return TimePoint{std::chrono::milliseconds{Int64(column)}};
}

void SqliteConnection::Closer::operator()(sqlite3* db) const noexcept { sqlite3_close_v2(db); }

SqliteConnection::SqliteConnection(const std::string& path, std::chrono::milliseconds busy_timeout)
    : path_(path) {
  constexpr int kFlags =
      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE;
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db, kFlags, nullptr);
  db_.reset(db);  // sqlite hands out a handle even when opening fails; it must be closed
  if (rc != SQLITE_OK) {
    throw StorageUnavailable("sqlite: cannot open " + path + ": " +
                             (db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc)));
  }
  sqlite3_busy_timeout(db, static_cast<int>(busy_timeout.count()));
  Execute(kEnableForeignKeys);
  RegisterDocgateTokenizer(db);
  RegisterDocgateBm25(db);
}

SqliteConnection::~SqliteConnection() {
  for (auto& [sql, stmt] : cache_) sqlite3_finalize(stmt);
}

SqliteStatement SqliteConnection::Prepare(std::string_view sql) {
  auto cached = cache_.find(sql);
  if (cached != cache_.end() && cached->second != nullptr) {
    return SqliteStatement(*this, sql, std::exchange(cached->second, nullptr));
  }
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v3(db_.get(), sql.data(), static_cast<int>(sql.size()),
                                    SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) Fail(rc, Abbreviated(sql));
  return SqliteStatement(*this, sql, stmt);
}

void SqliteConnection::GiveBack(std::string_view sql, sqlite3_stmt* stmt) noexcept {
  auto cached = cache_.find(sql);
  if (cached == cache_.end()) {
    cache_.emplace(std::string(sql), stmt);
  } else if (cached->second == nullptr) {
    cached->second = stmt;
  } else {
    sqlite3_finalize(stmt);  // a second copy, prepared while the first was borrowed
  }
}

void SqliteConnection::Execute(std::string_view script) {
  const std::string terminated(script);
  char* message = nullptr;
  const int rc = sqlite3_exec(db_.get(), terminated.c_str(), nullptr, nullptr, &message);
  if (rc == SQLITE_OK) return;
  const std::string text = message != nullptr ? message : sqlite3_errstr(rc);
  sqlite3_free(message);
  ThrowSqliteError(rc, text, Abbreviated(script));
}

std::int64_t SqliteConnection::Changes() const { return sqlite3_changes64(db_.get()); }

bool SqliteConnection::InTransaction() const { return sqlite3_get_autocommit(db_.get()) == 0; }

bool SqliteConnection::TryRollback() noexcept {
  if (!InTransaction()) return true;
  return sqlite3_exec(db_.get(), "ROLLBACK", nullptr, nullptr, nullptr) == SQLITE_OK;
}

void SqliteConnection::Fail(int code, std::string_view what) const {
  ThrowSqliteError(code, sqlite3_errmsg(db_.get()), what);
}

SqliteWriteTransaction::SqliteWriteTransaction(SqliteConnection& connection)
    : connection_(connection) {
  connection_.Prepare(kBeginImmediate).Run();
}

SqliteWriteTransaction::~SqliteWriteTransaction() {
  if (!committed_) connection_.TryRollback();
}

void SqliteWriteTransaction::Commit() {
  connection_.Prepare(kCommit).Run();
  committed_ = true;
}

}  // namespace docgate
