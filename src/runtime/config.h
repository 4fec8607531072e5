#pragma once

// The one configuration aggregate of a running docgate: per-component structs with their defaults,
// read from DOCGATE_* environment variables by a pure function (testable with a map), and
// validated once, at start, with messages that name the variable and what is wrong. Which
// variable sets which field, with its type, bounds and description, is the table of
// config_table.h (rendered as docs/configuration.md); the comments here say what a value means.

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/amqp/amqp_config.h"
#include "adapters/convert/import_config.h"
#include "adapters/http/http_server.h"
#include "adapters/mongo/mongo_config.h"
#include "adapters/oidc/oidc_config.h"
#include "adapters/openai/embeddings_config.h"
#include "adapters/redis/redis_config.h"
#include "app/consumer_runner.h"
#include "app/document_service.h"
#include "app/idempotency.h"
#include "app/ports/random_source.h"
#include "app/reader_service.h"
#include "core/chunker.h"
#include "worker/event_worker.h"
#include "worker/janitor.h"
#include "worker/outbox_relay.h"
#include "worker/reconciler.h"

namespace docgate {

struct DatabaseConfig {
  std::string url = "sqlite://./data/docgate.db";
  int pool_size = 4;
  // The longest wait for a free connection or SQLite's write lock.
  std::chrono::milliseconds busy_timeout{5000};
  std::chrono::milliseconds connect_timeout{5000};    // PostgreSQL
  std::chrono::milliseconds statement_timeout{5000};  // PostgreSQL
};

// Why `database` cannot be used, in one line naming the DOCGATE_DB_* / DOCGATE_DATABASE_URL
// variable (never echoing the URL past its scheme), or nullopt when it can: a sqlite://PATH (with a
// path) or postgresql:// URL, a pool of 1..1024, positive timeouts.
std::optional<std::string> ValidateDatabaseConfig(const DatabaseConfig& database);

struct AuthConfig {
  // Empty: kept in secret_file (SQLite only). Several, comma-separated, while they rotate.
  std::string jwt_secret;
  std::string secret_file;  // empty: `jwt_secret` beside the SQLite file
  // Where browsers reach docgate (`https://kb.example.com`): the console sign-in's redirect URI
  // is <public_url>/auth/callback. Empty: no console sign-in (bearer tokens only).
  std::string public_url;
  std::chrono::hours session_ttl{8};  // a console session's lifetime from its sign-in
};

// Why `auth`'s console settings cannot be used, or nullopt: DOCGATE_PUBLIC_URL empty or an
// http(s):// URL (a path when a proxy serves docgate under a prefix), a session lifetime of
// 1..720 hours.
std::optional<std::string> ValidateAuthConfig(const AuthConfig& auth);

// How reviews are decided (API.md v1.2 "Review policy").
struct ReviewsConfig {
  int quorum = 1;  // the distinct approvals a review needs, 1..10
};

struct GateConfig {
  bool enabled = true;
  std::string key_prefix = "lock:";
  std::chrono::milliseconds submit_ttl{8000};   // lock:doc:submit:{id}
  std::chrono::milliseconds review_ttl{10000};  // lock:doc:review:{id}
};

// Why `gate` cannot be used, or nullopt when it can: positive lock TTLs.
std::optional<std::string> ValidateGateConfig(const GateConfig& gate);

// The built-in consumers (preview projection, ingestion) and what drives them.
struct ConsumersConfig {
  // `docgate serve` runs the consumers too (in process without a broker; from the broker's queue
  // with one). Off only with a broker, for deployments that run `docgate worker` processes:
  // without a broker, the serving process is where events are consumed.
  bool in_serve = true;
  ConsumerRunnerConfig runner;
  EventWorkerConfig worker;  // the queue worker's; its retry backoff cap and batch
  ChunkerConfig chunker;
  ReconcilerConfig reconciler;
  ReaderConfig reader;
};

// Why `consumers` cannot be used, or nullopt when it can: the runner's, worker's, chunker's and
// reconciler's own validators, in that order. (What DOCGATE_CONSUMERS needs from the broker's
// settings is ValidateConfig's: it spans two components.)
std::optional<std::string> ValidateConsumersConfig(const ConsumersConfig& consumers);

struct LogConfig {
  std::string level = "info";  // trace, debug, info, warn, error, critical, off
  // json or text (runtime/log_line_formatter.h); empty: text when stderr is a terminal, else json.
  std::string format;
};

// Why `log` cannot be used (naming DOCGATE_LOG_LEVEL or DOCGATE_LOG_FORMAT), or nullopt when it
// can: a known level ("warning" is accepted for "warn") and format.
std::optional<std::string> ValidateLogConfig(const LogConfig& log);

struct Config {
  HttpConfig http;  // its workers default to the database pool size
  DatabaseConfig database;
  AuthConfig auth;
  // An issuer makes its RS256/ES256 tokens bearer tokens too.
  OidcConfig oidc;
  ReviewsConfig reviews;
  GateConfig gate;
  // A URL selects the Redis gate (unless the gate is off).
  RedisConfig redis;
  // A URL makes the relay publish to RabbitMQ instead of delivering in process.
  AmqpConfig amqp;
  RelayConfig relay;
  // How long an Idempotency-Key's response is replayed.
  IdempotencyConfig idempotency;
  // Pruning of expired idempotency keys and of done inbox rows (by default as long as the outbox
  // keeps its events, and never less).
  JanitorConfig janitor;
  ConsumersConfig consumers;
  // A URI puts the preview projection in MongoDB instead of the database.
  MongoConfig mongo;
  // A URL makes the consumers' side embed approved versions' chunks (ADR 0010).
  EmbeddingsConfig embeddings;
  // POST /api/v1/documents/import: its size limit and its converters' limits.
  ImportConfig import;
  LogConfig log;
};

// A startup configuration problem; what() is one line for the operator.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Looks an environment variable up; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

// The process environment (getenv).
EnvLookup ProcessEnvironment();
// The names of the process environment's variables, for UnknownVariableWarnings.
std::vector<std::string> ProcessEnvironmentNames();
// `base`, except for the names in `overrides` (command-line flags win over the environment).
EnvLookup WithOverrides(EnvLookup base, std::map<std::string, std::string, std::less<>> overrides);

// Builds a Config from the DOCGATE_* variables of the table (config_table.h) over the defaults; an
// empty variable counts as unset, and one with a `default_from` then takes that variable's value.
// Throws ConfigError for a malformed value (not a number, not one of the values; naming the
// variable). Does not run ValidateConfig, which checks the bounds.
Config LoadConfig(const EnvLookup& env);

// Runs each component's validator (ValidateDatabaseConfig, ValidateMongoConfig,
// ValidateEmbeddingsConfig, ValidateAmqpConfig, ValidateRedisConfig, ValidateHttpConfig,
// ValidateGateConfig, ValidateRelayConfig, ValidateIdempotencyConfig, ValidateJanitorConfig,
// ValidateConsumersConfig, ValidateLogConfig, in that order) and the rules that span components,
// each after the validators of the components it reads: a JWT secret is required with any
// non-SQLite database, the inbox's retention is at least the outbox's, and DOCGATE_CONSUMERS=off
// needs a broker while consuming from one needs a queue. Throws ConfigError with the first problem.
void ValidateConfig(const Config& config);

// The open files a serving docgate may need: its HTTP connections (spare ones included), its
// database and Redis pools, and a margin for the rest.
std::size_t OpenFilesNeeded(const Config& config);

// Makes sure the process may open OpenFilesNeeded files, so that a full load of HTTP clients
// never starves the database, Redis or broker connections: raises the soft RLIMIT_NOFILE up to the
// hard one when it is lower. Throws ConfigError, naming DOCGATE_HTTP_MAX_CONNECTIONS, when the hard
// limit is too low.
void ReserveOpenFiles(const Config& config);

// True for postgresql:// and postgres:// URLs.
bool IsPostgresUrl(std::string_view database_url);

// The file of a `sqlite://PATH` URL ("sqlite://./data/x.db" -> "./data/x.db",
// "sqlite:///var/x.db" -> "/var/x.db"); nullopt for any other scheme.
std::optional<std::string> SqlitePath(std::string_view database_url);

// Where the generated JWT secret is kept: auth.secret_file, else `jwt_secret` in the SQLite
// file's directory. Empty for non-SQLite databases.
std::string JwtSecretFile(const Config& config);

// The HS256 secret: auth.jwt_secret when set; otherwise (SQLite only) the content of
// JwtSecretFile, generated on first use as 256 random bits in hex, written with mode 0600 (its
// directory created if missing) and reused afterwards. Throws ConfigError when it cannot.
std::string ResolveJwtSecret(const Config& config, RandomSource& random);

// The HS256 secret as ResolveJwtSecret finds it, without creating one: for `docgate token`, which
// must sign with the secret the server uses. Throws ConfigError saying where it looked.
std::string ReadJwtSecret(const Config& config);

// The use cases' settings derived from the gate's.
ServiceConfig ToServiceConfig(const Config& config);

}  // namespace docgate
