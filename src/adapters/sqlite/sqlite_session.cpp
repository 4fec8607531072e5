#include "adapters/sqlite/sqlite_session.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <vector>

#include "adapters/sqlite/sqlite_migrations.h"
#include "core/error.h"
#include "core/instance_token.h"

namespace docgate {
namespace {

constexpr std::string_view kEnableWal = "PRAGMA journal_mode = WAL";
constexpr std::string_view kPing = "SELECT 1";

// The file 0600 (SQLite gives its -wal and -shm files the file's mode), in directories created
// by CreatePrivateDirectories.
void CreatePrivately(const std::filesystem::path& file) {
  CreatePrivateDirectories(file.parent_path());
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ::close(fd);
  } else if (errno != EEXIST) {
    throw StorageError("cannot create " + file.string() + ": " + std::strerror(errno));
  }
}

void EnableWal(SqliteConnection& connection) {
  auto stmt = connection.Prepare(kEnableWal);
  const std::string mode = stmt.Step() ? stmt.Text(0) : std::string();
  if (mode != "wal") throw StorageError("cannot switch to WAL (journal mode is '" + mode + "')");
}

std::unique_ptr<SqliteConnectionPool> OpenPool(const SqliteConfig& config) {
  if (config.path.empty() || config.path == ":memory:" || config.path.starts_with("file:")) {
    throw StorageError("path must name a database file (WAL and a pool need one)");
  }
  if (config.pool_size < 1) {
    throw StorageError("pool_size must be at least 1, not " + std::to_string(config.pool_size));
  }
  if (config.busy_timeout.count() < 0 ||
      config.busy_timeout.count() > std::numeric_limits<int>::max()) {
    throw StorageError("busy_timeout must be 0.." +
                       std::to_string(std::numeric_limits<int>::max()) + " ms");
  }
  CreatePrivately(config.path);

  std::vector<std::unique_ptr<SqliteConnection>> connections;
  connections.push_back(std::make_unique<SqliteConnection>(config.path, config.busy_timeout));
  EnableWal(*connections.front());
  ApplySqliteMigrations(*connections.front(), kSqliteMigrations);
  while (connections.size() < static_cast<std::size_t>(config.pool_size)) {
    connections.push_back(std::make_unique<SqliteConnection>(config.path, config.busy_timeout));
  }
  return std::make_unique<SqliteConnectionPool>(std::move(connections), config.busy_timeout);
}

}  // namespace

void CreatePrivateDirectories(const std::filesystem::path& directory) {
  std::vector<std::filesystem::path> missing;
  for (auto at = directory; !at.empty() && !std::filesystem::exists(at); at = at.parent_path()) {
    missing.push_back(at);
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (::mkdir(it->c_str(), 0700) != 0 && errno != EEXIST) {
      throw StorageError("cannot create the directory " + it->string() + ": " +
                         std::strerror(errno));
    }
  }
}

SqliteSession::SqliteSession(SqliteConfig config)
    : config_(std::move(config)),
      instance_token_(NewInstanceToken()),
      directory_(std::filesystem::absolute(config_.path).parent_path()) {
  try {
    pool_ = OpenPool(config_);
  } catch (const std::runtime_error& e) {
    // Nothing can be served without the file and its schema, so at start every cause (a bad
    // path, a foreign or newer database, a malformed migration) means the store is unavailable.
    throw StorageUnavailable("sqlite database " + config_.path + ": " + e.what());
  }
}

SqliteSession::~SqliteSession() = default;

void SqliteSession::Migrate(const SqliteConfig& config) { SqliteSession session(config); }

bool SqliteSession::Ping() {
  try {
    auto lease = Read();
    auto stmt = lease->Prepare(kPing);
    if (!stmt.Step() || stmt.Int64(0) != 1) return false;
  } catch (const std::runtime_error&) {
    return false;  // readiness reports the failure instead of propagating it
  }
  // A full disk answers reads and fails every write: not ready for what docgate is for.
  std::error_code error;
  const auto space = std::filesystem::space(directory_, error);
  return !error && space.available >= kMinFreeDiskBytes;
}

}  // namespace docgate
