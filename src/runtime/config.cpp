#include "runtime/config.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include "app/idempotency.h"
#include "core/config_check.h"

#include <array>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace docgate {
namespace {

constexpr std::string_view kSqliteScheme = "sqlite://";
constexpr std::array<std::string_view, 2> kPostgresSchemes = {"postgresql://", "postgres://"};
constexpr std::array<std::string_view, 8> kLogLevels = {"trace", "debug", "info",     "warn",
                                                        "warning", "error", "critical", "off"};

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

std::optional<std::string> Get(const EnvLookup& env, std::string_view name) {
  auto value = env(name);
  if (!value || value->empty()) return std::nullopt;
  return value;
}

template <typename Int>
Int ParseInteger(std::string_view name, const std::string& text) {
  Int value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size()) {
    throw ConfigError(std::string(name) + " must be an integer, got '" + text + "'");
  }
  return value;
}

void ReadOnOff(const EnvLookup& env, std::string_view name, bool& out) {
  if (auto text = Get(env, name)) {
    if (*text != "on" && *text != "off") {
      throw ConfigError(std::string(name) + " must be on or off, got '" + *text + "'");
    }
    out = *text == "on";
  }
}

template <typename Int>
void ReadInteger(const EnvLookup& env, std::string_view name, Int& out) {
  if (auto text = Get(env, name)) out = ParseInteger<Int>(name, *text);
}

void ReadMillis(const EnvLookup& env, std::string_view name, std::chrono::milliseconds& out) {
  if (auto text = Get(env, name)) out = std::chrono::milliseconds{ParseInteger<std::int64_t>(name, *text)};
}

void ReadString(const EnvLookup& env, std::string_view name, std::string& out) {
  if (auto text = Get(env, name)) out = std::move(*text);
}

// "127.0.0.1:8080", "[::1]:8080", "localhost:8080" -> address and port.
void ParseListen(const std::string& text, HttpConfig& http) {
  const auto fail = [&text](const std::string& why) {
    throw ConfigError("DOCGATE_LISTEN must be HOST:PORT (e.g. 127.0.0.1:8080), got '" + text +
                      "': " + why);
  };
  const auto colon = text.rfind(':');
  if (colon == std::string::npos) fail("no port");
  std::string host = text.substr(0, colon);
  const std::string port_text = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host == "localhost") host = "127.0.0.1";
  if (host.empty()) fail("no host");
  if (!IsIpLiteral(host)) fail("the host must be an IP address or localhost");
  int port = -1;
  const auto [end, ec] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc{} || end != port_text.data() + port_text.size() ||
      port < 0 || port > 65535) {
    fail("the port must be 0..65535");
  }
  http.address = host;
  http.port = static_cast<std::uint16_t>(port);
}

std::string Trimmed(std::string text) {
  const auto end = text.find_last_not_of(" \t\r\n");
  text.erase(end == std::string::npos ? 0 : end + 1);
  return text;
}

std::string ReadSecretFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError("cannot read the JWT secret file " + path + ": " + std::strerror(errno));
  std::stringstream content;
  content << in.rdbuf();
  std::string secret = Trimmed(content.str());
  if (secret.empty()) {
    throw ConfigError("the JWT secret file " + path +
                      " is empty; delete it to have a new secret generated, or set "
                      "DOCGATE_JWT_SECRET");
  }
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0 && (info.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    spdlog::warn("the JWT secret file {} is readable by other users; chmod 600 it", path);
  }
  return secret;
}

}  // namespace

EnvLookup ProcessEnvironment() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

bool IsPostgresUrl(std::string_view database_url) {
  for (const auto scheme : kPostgresSchemes) {
    if (StartsWith(database_url, scheme)) return true;
  }
  return false;
}

EnvLookup WithOverrides(EnvLookup base, std::map<std::string, std::string, std::less<>> overrides) {
  return [base = std::move(base),
          overrides = std::move(overrides)](std::string_view name) -> std::optional<std::string> {
    if (const auto it = overrides.find(name); it != overrides.end()) return it->second;
    return base(name);
  };
}

Config LoadConfig(const EnvLookup& env) {
  Config config;
  if (auto listen = Get(env, "DOCGATE_LISTEN")) ParseListen(*listen, config.http);
  ReadInteger(env, "DOCGATE_HTTP_IO_THREADS", config.http.io_threads);
  ReadMillis(env, "DOCGATE_HTTP_READ_TIMEOUT_MS", config.http.read_timeout);
  ReadInteger(env, "DOCGATE_HTTP_BODY_LIMIT", config.http.body_limit);
  ReadInteger(env, "DOCGATE_HTTP_MAX_CONNECTIONS", config.http.max_connections);
  ReadInteger(env, "DOCGATE_HTTP_QUEUE_LIMIT", config.http.queue_limit);
  ReadMillis(env, "DOCGATE_HTTP_QUEUE_TIMEOUT_MS", config.http.queue_timeout);
  ReadMillis(env, "DOCGATE_SHUTDOWN_GRACE_MS", config.http.shutdown_grace);

  ReadString(env, "DOCGATE_DATABASE_URL", config.database.url);
  ReadInteger(env, "DOCGATE_DB_POOL_SIZE", config.database.pool_size);
  ReadMillis(env, "DOCGATE_DB_BUSY_TIMEOUT_MS", config.database.busy_timeout);
  ReadMillis(env, "DOCGATE_DB_CONNECT_TIMEOUT_MS", config.database.connect_timeout);
  ReadMillis(env, "DOCGATE_DB_STATEMENT_TIMEOUT_MS", config.database.statement_timeout);
  // Blocking request work is bounded by the connections that can serve it.
  config.http.worker_threads = config.database.pool_size;
  ReadInteger(env, "DOCGATE_HTTP_WORKERS", config.http.worker_threads);

  ReadString(env, "DOCGATE_JWT_SECRET", config.auth.jwt_secret);
  ReadString(env, "DOCGATE_JWT_SECRET_FILE", config.auth.secret_file);
  ReadOnOff(env, "DOCGATE_LOCK_GATE", config.gate.enabled);
  ReadString(env, "DOCGATE_LOCK_PREFIX", config.gate.key_prefix);
  ReadString(env, "DOCGATE_REDIS_URL", config.redis.url);
  ReadString(env, "DOCGATE_REDIS_CA_FILE", config.redis.ca_file);
  ReadMillis(env, "DOCGATE_REDIS_CONNECT_TIMEOUT_MS", config.redis.connect_timeout);
  ReadMillis(env, "DOCGATE_REDIS_TIMEOUT_MS", config.redis.command_timeout);
  ReadInteger(env, "DOCGATE_REDIS_POOL_SIZE", config.redis.pool_size);
  ReadMillis(env, "DOCGATE_REDIS_BREAKER_MAX_MS", config.redis.breaker_max);
  ReadMillis(env, "DOCGATE_REDIS_LEASE_MAX_HOLD_MS", config.redis.lease_max_hold);
  ReadString(env, "DOCGATE_AMQP_URL", config.amqp.url);
  ReadString(env, "DOCGATE_AMQP_CA_FILE", config.amqp.ca_file);
  ReadString(env, "DOCGATE_AMQP_EXCHANGE", config.amqp.exchange);
  ReadString(env, "DOCGATE_AMQP_QUEUE", config.amqp.queue);
  ReadMillis(env, "DOCGATE_AMQP_CONNECT_TIMEOUT_MS", config.amqp.connect_timeout);
  ReadMillis(env, "DOCGATE_AMQP_CONFIRM_TIMEOUT_MS", config.amqp.confirm_timeout);
  ReadInteger(env, "DOCGATE_AMQP_PREFETCH", config.amqp.prefetch);
  ReadMillis(env, "DOCGATE_AMQP_REQUEST_TIMEOUT_MS", config.amqp.request_timeout);
  ReadInteger(env, "DOCGATE_OUTBOX_BATCH_SIZE", config.relay.batch_size);
  ReadMillis(env, "DOCGATE_OUTBOX_POLL_MS", config.relay.idle_poll);
  ReadMillis(env, "DOCGATE_OUTBOX_RETRY_MAX_MS", config.relay.max_retry_delay);
  ReadMillis(env, "DOCGATE_OUTBOX_CLAIM_TTL_MS", config.relay.claim_ttl);
  auto retention_hours = config.relay.retention.count();
  ReadInteger(env, "DOCGATE_OUTBOX_RETENTION_HOURS", retention_hours);
  config.relay.retention = std::chrono::hours(retention_hours);
  // Unset, the inbox keeps its rows as long as the outbox keeps the events they answer for.
  auto inbox_retention_hours = retention_hours;
  ReadInteger(env, "DOCGATE_INBOX_RETENTION_HOURS", inbox_retention_hours);
  config.janitor.inbox_retention = std::chrono::hours(inbox_retention_hours);
  auto idempotency_ttl_hours = config.idempotency.ttl.count();
  ReadInteger(env, "DOCGATE_IDEMPOTENCY_TTL_HOURS", idempotency_ttl_hours);
  config.idempotency.ttl = std::chrono::hours(idempotency_ttl_hours);
  ReadString(env, "DOCGATE_MONGODB_URI", config.mongo.uri);
  ReadMillis(env, "DOCGATE_MONGODB_CONNECT_TIMEOUT_MS", config.mongo.connect_timeout);
  ReadMillis(env, "DOCGATE_MONGODB_TIMEOUT_MS", config.mongo.operation_timeout);
  ReadOnOff(env, "DOCGATE_CONSUMERS", config.consumers.in_serve);
  ReadInteger(env, "DOCGATE_CONSUMER_MAX_ATTEMPTS", config.consumers.runner.max_attempts);
  ReadMillis(env, "DOCGATE_CONSUMER_RETRY_MAX_MS", config.consumers.worker.max_retry_delay);
  ReadInteger(env, "DOCGATE_CONSUMER_BATCH", config.consumers.worker.batch_size);
  ReadInteger(env, "DOCGATE_CHUNK_MAX_BYTES", config.consumers.chunker.max_bytes);
  ReadInteger(env, "DOCGATE_CHUNK_OVERLAP_BYTES", config.consumers.chunker.overlap_bytes);
  ReadMillis(env, "DOCGATE_RECONCILE_INTERVAL_MS", config.consumers.reconciler.interval);
  ReadMillis(env, "DOCGATE_RECONCILE_STUCK_AFTER_MS", config.consumers.reconciler.stuck_after);
  ReadString(env, "DOCGATE_EMBEDDINGS_URL", config.embeddings.url);
  ReadString(env, "DOCGATE_EMBEDDINGS_MODEL", config.embeddings.model);
  ReadString(env, "DOCGATE_EMBEDDINGS_API_KEY", config.embeddings.api_key);
  ReadInteger(env, "DOCGATE_EMBEDDINGS_DIMENSIONS", config.embeddings.dimensions);
  ReadInteger(env, "DOCGATE_EMBEDDINGS_BATCH", config.embeddings.batch);
  ReadInteger(env, "DOCGATE_EMBEDDINGS_CONCURRENCY", config.embeddings.concurrency);
  ReadString(env, "DOCGATE_EMBEDDINGS_CA_FILE", config.embeddings.ca_file);
  ReadMillis(env, "DOCGATE_EMBEDDINGS_CONNECT_TIMEOUT_MS", config.embeddings.connect_timeout);
  ReadMillis(env, "DOCGATE_EMBEDDINGS_TIMEOUT_MS", config.embeddings.request_timeout);
  ReadMillis(env, "DOCGATE_EMBEDDINGS_QUERY_TIMEOUT_MS", config.embeddings.query_timeout);
  ReadInteger(env, "DOCGATE_EMBEDDINGS_QUERY_CONCURRENCY", config.embeddings.query_concurrency);
  ReadInteger(env, "DOCGATE_EMBEDDINGS_MAX_ATTEMPTS", config.embeddings.max_attempts);
  ReadMillis(env, "DOCGATE_EMBEDDINGS_RETRY_MAX_MS", config.embeddings.retry_max);
  ReadMillis(env, "DOCGATE_EMBEDDINGS_BREAKER_MAX_MS", config.embeddings.breaker_max);
  ReadString(env, "DOCGATE_LOG_LEVEL", config.log.level);
  return config;
}

namespace {

// The first problem of a component's settings, as a ConfigError.
void ThrowIf(std::optional<std::string> problem) {
  if (problem) throw ConfigError(*problem);
}

}  // namespace

std::optional<std::string> ValidateDatabaseConfig(const DatabaseConfig& database) {
  const std::string& url = database.url;
  const bool postgres = IsPostgresUrl(url);
  if (!StartsWith(url, kSqliteScheme) && !postgres) {
    return "DOCGATE_DATABASE_URL must be sqlite://PATH or postgresql://..., got '" +
           url.substr(0, url.find("://")) + "://...'";
  }
  const auto path = SqlitePath(url);
  if (!postgres && (!path || path->empty())) {
    return "DOCGATE_DATABASE_URL sqlite:// needs a file path, e.g. sqlite://./data/docgate.db";
  }
  return ConfigCheck()
      .Range("DOCGATE_DB_POOL_SIZE", database.pool_size, 1, 1024)
      .Positive("DOCGATE_DB_BUSY_TIMEOUT_MS", database.busy_timeout)
      .Positive("DOCGATE_DB_CONNECT_TIMEOUT_MS", database.connect_timeout)
      .Positive("DOCGATE_DB_STATEMENT_TIMEOUT_MS", database.statement_timeout)
      .Problem();
}

std::optional<std::string> ValidateGateConfig(const GateConfig& gate) {
  return ConfigCheck()
      .Positive("the submit lock TTL", gate.submit_ttl)
      .Positive("the review lock TTL", gate.review_ttl)
      .Problem();
}

std::optional<std::string> ValidateConsumersConfig(const ConsumersConfig& consumers) {
  std::optional<std::string> chunker = ValidateChunkerConfig(consumers.chunker);
  if (chunker) chunker = "DOCGATE_CHUNK_MAX_BYTES / DOCGATE_CHUNK_OVERLAP_BYTES: " + *chunker;
  return ConfigCheck()
      .Include(ValidateConsumerRunnerConfig(consumers.runner))
      .Include(ValidateEventWorkerConfig(consumers.worker))
      .Include(std::move(chunker))
      .Include(ValidateReconcilerConfig(consumers.reconciler))
      .Problem();
}

std::optional<std::string> ValidateLogConfig(const LogConfig& log) {
  for (const auto level : kLogLevels) {
    if (level == log.level) return std::nullopt;
  }
  return "DOCGATE_LOG_LEVEL must be trace, debug, info, warn, error, critical or off, got '" +
         log.level + "'";
}

void ValidateConfig(const Config& config) {
  ThrowIf(ValidateDatabaseConfig(config.database));
  if (!StartsWith(config.database.url, kSqliteScheme) && config.auth.jwt_secret.empty()) {
    throw ConfigError(
        "DOCGATE_JWT_SECRET is required when the database is not SQLite: every instance must "
        "verify tokens with the same secret");
  }
  ThrowIf(ValidateMongoConfig(config.mongo));
  ThrowIf(ValidateEmbeddingsConfig(config.embeddings));
  ThrowIf(ValidateAmqpConfig(config.amqp));
  ThrowIf(ValidateRedisConfig(config.redis));
  ThrowIf(ValidateHttpConfig(config.http));
  ThrowIf(ValidateGateConfig(config.gate));
  ThrowIf(ValidateRelayConfig(config.relay));
  ThrowIf(ValidateIdempotencyConfig(config.idempotency));
  ThrowIf(ValidateJanitorConfig(config.janitor));
  if (config.janitor.inbox_retention < config.relay.retention) {
    throw ConfigError(
        "DOCGATE_INBOX_RETENTION_HOURS must be at least DOCGATE_OUTBOX_RETENTION_HOURS (" +
        std::to_string(config.relay.retention.count()) +
        "): an inbox row must outlive every redelivery of its event");
  }
  if (!config.consumers.in_serve && config.amqp.url.empty()) {
    throw ConfigError(
        "DOCGATE_CONSUMERS=off needs DOCGATE_AMQP_URL: without a broker, events are consumed in "
        "the serving process, and nothing else would ever consume them");
  }
  if (!config.amqp.url.empty() && config.consumers.in_serve && config.amqp.queue.empty()) {
    throw ConfigError(
        "DOCGATE_AMQP_QUEUE must not be empty while docgate serve consumes events from the broker "
        "(or set DOCGATE_CONSUMERS=off and run docgate worker processes with a queue)");
  }
  ThrowIf(ValidateConsumersConfig(config.consumers));
  ThrowIf(ValidateLogConfig(config.log));
}

std::size_t OpenFilesNeeded(const Config& config) {
  // SQLite holds up to three files per connection (database, WAL, shared memory); the margin
  // covers the broker, MongoDB, the listener, epoll, logs and the worker threads' descriptors.
  constexpr std::size_t kMargin = 128;
  return config.http.max_connections + kSpareConnections +
         3 * static_cast<std::size_t>(config.database.pool_size) +
         static_cast<std::size_t>(config.redis.pool_size) + kMargin;
}

void ReserveOpenFiles(const Config& config) {
  const std::size_t needed = OpenFilesNeeded(config);
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    throw ConfigError(std::string("cannot read the open-file limit: ") + std::strerror(errno));
  }
  if (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur >= needed) return;
  if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < needed) {
    throw ConfigError(
        "DOCGATE_HTTP_MAX_CONNECTIONS=" + std::to_string(config.http.max_connections) + " needs " +
        std::to_string(needed) +
        " open files with the database, Redis and broker connections, but the "
        "process may open only " +
        std::to_string(limit.rlim_max) +
        " (ulimit -Hn); lower DOCGATE_HTTP_MAX_CONNECTIONS or raise the limit");
  }
  const rlim_t soft = limit.rlim_cur;
  limit.rlim_cur = needed;
  if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) {
    throw ConfigError("cannot raise the open-file limit from " + std::to_string(soft) + " to " +
                      std::to_string(needed) +
                      " for DOCGATE_HTTP_MAX_CONNECTIONS: " + std::strerror(errno));
  }
  spdlog::info("raised the open-file limit from {} to {} for {} HTTP connections", soft, needed,
               config.http.max_connections);
}

std::optional<std::string> SqlitePath(std::string_view database_url) {
  if (!StartsWith(database_url, kSqliteScheme)) return std::nullopt;
  return std::string(database_url.substr(kSqliteScheme.size()));
}

std::string JwtSecretFile(const Config& config) {
  if (!config.auth.secret_file.empty()) return config.auth.secret_file;
  const auto path = SqlitePath(config.database.url);
  if (!path) return {};
  std::filesystem::path directory = std::filesystem::path(*path).parent_path();
  if (directory.empty()) directory = ".";
  return (directory / "jwt_secret").string();
}

std::string ResolveJwtSecret(const Config& config, RandomSource& random) {
  if (!config.auth.jwt_secret.empty()) return config.auth.jwt_secret;
  const std::string path = JwtSecretFile(config);
  if (path.empty()) {
    throw ConfigError("DOCGATE_JWT_SECRET is required when the database is not SQLite");
  }
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) return ReadSecretFile(path);

  const auto directory = std::filesystem::path(path).parent_path();
  if (!directory.empty()) {
    std::filesystem::create_directories(directory, ec);
    if (ec) {
      throw ConfigError("cannot create the data directory " + directory.string() + " for the JWT secret: " +
                        ec.message());
    }
  }
  const std::string secret = random.Token128() + random.Token128();  // 256 bits, hex
  // Written aside and linked into place, so the file appears whole; when two processes start at
  // once, link() lets exactly one win and the other reads the winner's secret.
  const std::string temporary = path + "." + random.Token128() + ".tmp";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    throw ConfigError("cannot create the JWT secret file " + path + ": " + std::strerror(errno));
  }
  const std::string line = secret + "\n";
  const bool written = ::fchmod(fd, 0600) == 0 &&
                       ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()) &&
                       ::fsync(fd) == 0;
  int saved_errno = errno;
  ::close(fd);
  const bool linked = written && ::link(temporary.c_str(), path.c_str()) == 0;
  if (written && !linked) saved_errno = errno;
  ::unlink(temporary.c_str());
  if (!linked) {
    if (written && saved_errno == EEXIST) return ReadSecretFile(path);
    throw ConfigError("cannot write the JWT secret file " + path + ": " + std::strerror(saved_errno));
  }
  spdlog::info("generated a JWT secret in {} (mode 0600); `docgate token` signs with it", path);
  return secret;
}

ServiceConfig ToServiceConfig(const Config& config) {
  ServiceConfig service;
  service.submit_lock_ttl = config.gate.submit_ttl;
  service.review_lock_ttl = config.gate.review_ttl;
  return service;
}

}  // namespace docgate
