#include "runtime/config.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include "adapters/http/jwt_auth.h"
#include "adapters/sqlite/sqlite_session.h"
#include "adapters/web/web_url.h"
#include "app/idempotency.h"
#include "core/config_check.h"
#include "core/error.h"
#include "runtime/config_table.h"

#include <array>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <type_traits>
#include <variant>

namespace docgate {
namespace {

constexpr std::string_view kSqliteScheme = "sqlite://";
constexpr std::array<std::string_view, 2> kPostgresSchemes = {"postgresql://", "postgres://"};

// The first problem of a component's settings, as a ConfigError.
void ThrowIf(std::optional<std::string> problem) {
  if (problem) throw ConfigError(*problem);
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

// "127.0.0.1:8080", "[::1]:8080", "localhost:8080" -> address and port.
void ParseListen(std::string_view name, const std::string& text, HttpConfig& http) {
  const auto fail = [name, &text](const std::string& why) {
    throw ConfigError(std::string(name) + " must be HOST:PORT (e.g. 127.0.0.1:8080), got '" + text +
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

// Parses `text` as `variable`'s type into its field. Numbers are parsed as the field's own type,
// so that one it cannot hold is "not an integer" rather than wrapped.
void Store(const ConfigVariable& variable, std::string text, Config& config) {
  const std::string_view name = variable.name;
  std::visit(
      [&](auto field) {
        auto& value = field(config);
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, HttpConfig>) {
          ParseListen(name, text, value);
        } else if constexpr (std::is_same_v<T, std::string>) {
          if (variable.type == ConfigType::kEnum) ThrowIf(ValueProblem(variable, text));
          value = std::move(text);
        } else if constexpr (std::is_same_v<T, bool>) {
          ThrowIf(ValueProblem(variable, text));
          value = text == variable.values.front();
        } else if constexpr (std::is_integral_v<T>) {
          value = ParseInteger<T>(name, text);
        } else {
          value = T{ParseInteger<typename T::rep>(name, text)};
        }
      },
      variable.field);
}

// `to`'s field takes `from`'s value; the table pairs only variables of the same type.
void CopyField(const ConfigVariable& from, const ConfigVariable& to, Config& config) {
  std::visit(
      [&](auto to_field) {
        const auto from_field = std::get<decltype(to_field)>(from.field);
        to_field(config) = from_field(config);
      },
      to.field);
}

std::string Trimmed(std::string text) {
  const auto end = text.find_last_not_of(" \t\r\n");
  text.erase(end == std::string::npos ? 0 : end + 1);
  return text;
}

std::string ReadSecretFile(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw ConfigError("cannot read the JWT secret file " + path + ": " + std::strerror(errno));
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

std::vector<std::string> ProcessEnvironmentNames() {
  std::vector<std::string> names;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    names.emplace_back(text.substr(0, text.find('=')));
  }
  return names;
}

EnvLookup ProcessEnvironment() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

bool IsPostgresUrl(std::string_view database_url) {
  for (const auto scheme : kPostgresSchemes) {
    if (database_url.starts_with(scheme)) return true;
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
  for (const ConfigVariable& variable : ConfigVariables()) {
    if (auto text = Get(env, variable.name)) Store(variable, *text, config);
  }
  // After the pass: the variable a default follows has been read by now.
  for (const ConfigVariable& variable : ConfigVariables()) {
    if (variable.default_from.empty() || Get(env, variable.name)) continue;
    CopyField(*FindConfigVariable(variable.default_from), variable, config);
  }
  return config;
}

std::optional<std::string> ValidateDatabaseConfig(const DatabaseConfig& database) {
  const std::string& url = database.url;
  const bool postgres = IsPostgresUrl(url);
  if (!url.starts_with(kSqliteScheme) && !postgres) {
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
  if (auto problem = ValueProblem(*FindConfigVariable("DOCGATE_LOG_LEVEL"), log.level)) {
    return problem;
  }
  if (log.format.empty()) return std::nullopt;
  return ValueProblem(*FindConfigVariable("DOCGATE_LOG_FORMAT"), log.format);
}

std::optional<std::string> ValidateAuthConfig(const AuthConfig& auth) {
  if (auto problem = ConfigCheck()
                         .Range<std::int64_t>("DOCGATE_SESSION_TTL_HOURS", auth.session_ttl.count(),
                                              1, 24 * 30)
                         .Problem()) {
    return problem;
  }
  const std::string& public_url = auth.public_url;
  if (public_url.empty()) return std::nullopt;
  try {
    ParseWebUrl(public_url, "nothing: browsers need none");
  } catch (const std::invalid_argument& e) {
    return std::string("DOCGATE_PUBLIC_URL must be where browsers reach docgate: ") + e.what();
  }
  return std::nullopt;
}

void ValidateConfig(const Config& config) {
  ThrowIf(ValidateDatabaseConfig(config.database));
  if (!config.database.url.starts_with(kSqliteScheme) && config.auth.jwt_secret.empty()) {
    throw ConfigError(
        "DOCGATE_JWT_SECRET is required when the database is not SQLite: every instance must "
        "verify tokens with the same secret");
  }
  if (!config.auth.jwt_secret.empty() && !SplitJwtSecrets(config.auth.jwt_secret)) {
    throw ConfigError(
        "DOCGATE_JWT_SECRET lists an empty secret: separate rotating secrets with single commas");
  }
  ThrowIf(ValidateOidcConfig(config.oidc));
  ThrowIf(ValidateAuthConfig(config.auth));
  ThrowIf(ConfigCheck().Range("DOCGATE_REVIEW_QUORUM", config.reviews.quorum, 1, 10).Problem());
  ThrowIf(ValidateMongoConfig(config.mongo));
  ThrowIf(ValidateEmbeddingsConfig(config.embeddings));
  ThrowIf(ValidateImportConfig(config.import));
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
  if (!database_url.starts_with(kSqliteScheme)) return std::nullopt;
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

namespace {

// The HS256 secret where it already is (DOCGATE_JWT_SECRET, else its file), and the file that
// holds or will hold it.
struct ExistingJwtSecret {
  std::optional<std::string> secret;
  std::string path;
};

ExistingJwtSecret FindJwtSecret(const Config& config) {
  if (!config.auth.jwt_secret.empty()) return {config.auth.jwt_secret, {}};
  const std::string path = JwtSecretFile(config);
  if (path.empty()) {
    throw ConfigError("DOCGATE_JWT_SECRET is required when the database is not SQLite");
  }
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return {std::nullopt, path};
  return {ReadSecretFile(path), path};
}

}  // namespace

std::string ReadJwtSecret(const Config& config) {
  const ExistingJwtSecret found = FindJwtSecret(config);
  if (!found.secret) {
    throw ConfigError("no JWT secret: DOCGATE_JWT_SECRET is unset and " + found.path +
                      " does not exist. `docgate serve` creates it on its first start with the "
                      "same DOCGATE_DATABASE_URL (or DOCGATE_JWT_SECRET_FILE); run this command "
                      "with those, or set DOCGATE_JWT_SECRET");
  }
  return *found.secret;
}

std::string ResolveJwtSecret(const Config& config, RandomSource& random) {
  const auto [existing, path] = FindJwtSecret(config);
  if (existing) return *existing;

  try {
    CreatePrivateDirectories(std::filesystem::path(path).parent_path());
  } catch (const StorageError& e) {
    throw ConfigError(std::string("the JWT secret's data directory: ") + e.what());
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
    throw ConfigError("cannot write the JWT secret file " + path + ": " +
                      std::strerror(saved_errno));
  }
  spdlog::info("generated a JWT secret in {} (mode 0600); `docgate token` signs with it", path);
  return secret;
}

ServiceConfig ToServiceConfig(const Config& config) {
  ServiceConfig service;
  service.submit_lock_ttl = config.gate.submit_ttl;
  service.review_lock_ttl = config.gate.review_ttl;
  service.review_quorum = config.reviews.quorum;
  return service;
}

}  // namespace docgate
