#include "runtime/config.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "fakes/fake_random.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;
using Env = std::map<std::string, std::string, std::less<>>;

EnvLookup Lookup(Env env) {
  return [env = std::move(env)](std::string_view name) -> std::optional<std::string> {
    if (const auto it = env.find(name); it != env.end()) return it->second;
    return std::nullopt;
  };
}

Config Load(Env env) { return LoadConfig(Lookup(std::move(env))); }

// The message of the ConfigError that `fn` throws ("" when it does not throw).
template <typename Fn>
std::string ErrorOf(Fn&& fn) {
  try {
    fn();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

std::string ValidationError(Env env) {
  return ErrorOf([&] { ValidateConfig(Load(std::move(env))); });
}

TEST(Config, DefaultsWithAnEmptyEnvironment) {
  const Config config = Load({});
  EXPECT_EQ(config.http.address, "127.0.0.1");
  EXPECT_EQ(config.http.port, 8080);
  EXPECT_EQ(config.http.body_limit, 1024u * 1024u);
  EXPECT_EQ(config.database.url, "sqlite://./data/docgate.db");
  EXPECT_EQ(config.database.pool_size, 4);
  EXPECT_EQ(config.http.worker_threads, config.database.pool_size);
  EXPECT_EQ(config.gate.key_prefix, "lock:");
  EXPECT_EQ(config.gate.submit_ttl, 8s);
  EXPECT_EQ(config.gate.review_ttl, 10s);
  EXPECT_TRUE(config.auth.jwt_secret.empty());
  EXPECT_EQ(config.log.level, "info");
  EXPECT_NO_THROW(ValidateConfig(config));
}

TEST(Config, ReadsEveryVariable) {
  const Config config = Load({{"DOCGATE_LISTEN", "0.0.0.0:9090"},
                              {"DOCGATE_DATABASE_URL", "sqlite:///var/lib/docgate/x.db"},
                              {"DOCGATE_DB_POOL_SIZE", "8"},
                              {"DOCGATE_DB_BUSY_TIMEOUT_MS", "250"},
                              {"DOCGATE_HTTP_IO_THREADS", "3"},
                              {"DOCGATE_HTTP_READ_TIMEOUT_MS", "1500"},
                              {"DOCGATE_HTTP_BODY_LIMIT", "2048"},
                              {"DOCGATE_SHUTDOWN_GRACE_MS", "100"},
                              {"DOCGATE_JWT_SECRET", "s3cret"},
                              {"DOCGATE_JWT_SECRET_FILE", "/tmp/x"},
                              {"DOCGATE_LOCK_PREFIX", "test:"},
                              {"DOCGATE_LOG_LEVEL", "debug"}});
  EXPECT_EQ(config.http.address, "0.0.0.0");
  EXPECT_EQ(config.http.port, 9090);
  EXPECT_EQ(config.database.url, "sqlite:///var/lib/docgate/x.db");
  EXPECT_EQ(config.database.pool_size, 8);
  EXPECT_EQ(config.http.worker_threads, 8);
  EXPECT_EQ(config.database.busy_timeout, 250ms);
  EXPECT_EQ(config.http.io_threads, 3);
  EXPECT_EQ(config.http.read_timeout, 1500ms);
  EXPECT_EQ(config.http.body_limit, 2048u);
  EXPECT_EQ(config.http.shutdown_grace, 100ms);
  EXPECT_EQ(config.auth.jwt_secret, "s3cret");
  EXPECT_EQ(config.auth.secret_file, "/tmp/x");
  EXPECT_EQ(config.gate.key_prefix, "test:");
  EXPECT_EQ(config.log.level, "debug");
  EXPECT_NO_THROW(ValidateConfig(config));
  EXPECT_EQ(Load({{"DOCGATE_DB_POOL_SIZE", "8"}, {"DOCGATE_HTTP_WORKERS", "2"}}).http.worker_threads,
            2);
}

TEST(Config, ParsesListenForms) {
  EXPECT_EQ(Load({{"DOCGATE_LISTEN", "[::1]:8081"}}).http.address, "::1");
  EXPECT_EQ(Load({{"DOCGATE_LISTEN", "localhost:8082"}}).http.address, "127.0.0.1");
  EXPECT_EQ(Load({{"DOCGATE_LISTEN", "127.0.0.1:0"}}).http.port, 0);
  for (const char* bad : {"8080", "127.0.0.1", "127.0.0.1:", ":8080", "127.0.0.1:65536",
                          "127.0.0.1:-1", "127.0.0.1:http", "example.com:80"}) {
    const auto message = ErrorOf([&] { Load({{"DOCGATE_LISTEN", bad}}); });
    EXPECT_NE(message.find("DOCGATE_LISTEN"), std::string::npos) << bad << ": " << message;
  }
}

TEST(Config, EmptyVariablesCountAsUnset) {
  const Config config = Load({{"DOCGATE_REDIS_URL", ""}, {"DOCGATE_LISTEN", ""}});
  EXPECT_EQ(config.http.port, 8080);
  EXPECT_NO_THROW(ValidateConfig(config));
}

TEST(Config, MalformedNumbersNameTheVariable) {
  for (const char* name : {"DOCGATE_DB_POOL_SIZE", "DOCGATE_DB_BUSY_TIMEOUT_MS",
                           "DOCGATE_HTTP_IO_THREADS", "DOCGATE_HTTP_WORKERS",
                           "DOCGATE_HTTP_BODY_LIMIT", "DOCGATE_HTTP_READ_TIMEOUT_MS"}) {
    const auto message = ErrorOf([&] { Load({{name, "12abc"}}); });
    EXPECT_NE(message.find(name), std::string::npos) << message;
  }
  EXPECT_NE(ValidationError({{"DOCGATE_DB_POOL_SIZE", "0"}}).find("DOCGATE_DB_POOL_SIZE"),
            std::string::npos);
  EXPECT_NE(ValidationError({{"DOCGATE_HTTP_READ_TIMEOUT_MS", "0"}}).find("READ_TIMEOUT"),
            std::string::npos);
  EXPECT_NE(ValidationError({{"DOCGATE_LOG_LEVEL", "loud"}}).find("DOCGATE_LOG_LEVEL"),
            std::string::npos);
}

TEST(Config, HttpLimitsHaveDefaultsAndNameTheirVariable) {
  const Config defaults = Load({});
  EXPECT_EQ(defaults.http.max_connections, 1024u);
  EXPECT_EQ(defaults.http.queue_limit, 128u);
  EXPECT_EQ(defaults.http.queue_timeout, 5s);
  const Config config = Load({{"DOCGATE_HTTP_MAX_CONNECTIONS", "64"},
                              {"DOCGATE_HTTP_QUEUE_LIMIT", "8"},
                              {"DOCGATE_HTTP_QUEUE_TIMEOUT_MS", "250"}});
  EXPECT_EQ(config.http.max_connections, 64u);
  EXPECT_EQ(config.http.queue_limit, 8u);
  EXPECT_EQ(config.http.queue_timeout, 250ms);
  EXPECT_NO_THROW(ValidateConfig(config));
  for (const char* name : {"DOCGATE_HTTP_MAX_CONNECTIONS", "DOCGATE_HTTP_QUEUE_LIMIT",
                           "DOCGATE_HTTP_QUEUE_TIMEOUT_MS"}) {
    EXPECT_NE(ErrorOf([&] { Load({{name, "12abc"}}); }).find(name), std::string::npos) << name;
    EXPECT_NE(ValidationError({{name, "0"}}).find(name), std::string::npos) << name;
  }
}

TEST(Config, ConnectionsBeyondTheOpenFileLimitNameTheSetting) {
  rlimit limit{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &limit), 0);
  if (limit.rlim_max == RLIM_INFINITY) GTEST_SKIP() << "no hard open-file limit to exceed";
  Config config;
  if (OpenFilesNeeded(config) <= limit.rlim_max) {
    EXPECT_NO_THROW(ReserveOpenFiles(config));
  }
  config.http.max_connections = limit.rlim_max;
  EXPECT_GT(OpenFilesNeeded(config), limit.rlim_max);
  EXPECT_NE(ErrorOf([&] { ReserveOpenFiles(config); }).find("DOCGATE_HTTP_MAX_CONNECTIONS"),
            std::string::npos);
}

TEST(Config, SqliteAndPostgresqlUrlsAreAccepted) {
  EXPECT_EQ(ValidationError({{"DOCGATE_DATABASE_URL", "postgresql://u:p@localhost/docgate"},
                             {"DOCGATE_JWT_SECRET", "x"}}),
            "");
  EXPECT_EQ(ValidationError({{"DOCGATE_DATABASE_URL", "postgres://localhost/docgate"},
                             {"DOCGATE_JWT_SECRET", "x"}}),
            "");
  EXPECT_TRUE(IsPostgresUrl("postgresql://x"));
  EXPECT_FALSE(IsPostgresUrl("sqlite://x"));
  const auto mysql = ValidationError({{"DOCGATE_DATABASE_URL", "mysql://u:p@x"}});
  EXPECT_NE(mysql.find("DOCGATE_DATABASE_URL"), std::string::npos);
  EXPECT_EQ(mysql.find("u:p"), std::string::npos) << "credentials must not be echoed: " << mysql;
  EXPECT_NE(ValidationError({{"DOCGATE_DATABASE_URL", "sqlite://"}}).find("path"),
            std::string::npos);
}

TEST(Config, TheGateCanBeSwitchedOffAndNothingElse) {
  EXPECT_TRUE(Load({}).gate.enabled);
  EXPECT_FALSE(Load({{"DOCGATE_LOCK_GATE", "off"}}).gate.enabled);
  EXPECT_THROW(Load({{"DOCGATE_LOCK_GATE", "maybe"}}), ConfigError);
}

TEST(Config, NonSqliteDatabasesRequireAJwtSecret) {
  const auto message = ValidationError({{"DOCGATE_DATABASE_URL", "postgresql://localhost/docgate"}});
  EXPECT_NE(message.find("DOCGATE_JWT_SECRET is required"), std::string::npos) << message;
}

TEST(Config, RedisUrlSelectsTheRedisGateAndMustParse) {
  const Config config = Load({{"DOCGATE_REDIS_URL", "rediss://u:p@cache.example:6380/2"},
                              {"DOCGATE_REDIS_TIMEOUT_MS", "250"}});
  EXPECT_EQ(config.redis.url, "rediss://u:p@cache.example:6380/2");
  EXPECT_EQ(config.redis.command_timeout, std::chrono::milliseconds{250});
  EXPECT_EQ(config.redis.connect_timeout, std::chrono::milliseconds{5000});
  EXPECT_EQ(ValidationError({{"DOCGATE_REDIS_URL", "redis://localhost:6379"}}), "");
  EXPECT_NE(ValidationError({{"DOCGATE_REDIS_URL", "http://localhost:6379"}}).find("DOCGATE_REDIS_URL"),
            std::string::npos);
  EXPECT_NE(ValidationError({{"DOCGATE_REDIS_URL", "redis://localhost:99999"}}).find("port"),
            std::string::npos);
}

TEST(Config, AmqpSettingsAreReadAndAForeignSchemeIsRefused) {
  const Config config = LoadConfig(Lookup({{"DOCGATE_AMQP_URL", "amqps://u:p@mq:5671/v"},
                                           {"DOCGATE_AMQP_EXCHANGE", "kb.events"},
                                           {"DOCGATE_AMQP_QUEUE", "kb.ingest"},
                                           {"DOCGATE_AMQP_CONFIRM_TIMEOUT_MS", "2500"},
                                           {"DOCGATE_OUTBOX_BATCH_SIZE", "250"},
                                           {"DOCGATE_OUTBOX_RETENTION_HOURS", "48"}}));
  EXPECT_EQ(config.amqp.url, "amqps://u:p@mq:5671/v");
  EXPECT_EQ(config.amqp.exchange, "kb.events");
  EXPECT_EQ(config.amqp.queue, "kb.ingest");
  EXPECT_EQ(config.amqp.confirm_timeout, std::chrono::milliseconds(2500));
  EXPECT_EQ(config.relay.batch_size, 250);
  EXPECT_EQ(config.relay.retention, std::chrono::hours(48));
  EXPECT_EQ(LoadConfig(Lookup({})).amqp.exchange, "docgate.events");
  EXPECT_NE(ValidationError({{"DOCGATE_AMQP_URL", "http://mq"}}).find("DOCGATE_AMQP_URL"),
            std::string::npos);
  const std::string bad_port = ValidationError({{"DOCGATE_AMQP_URL", "amqp://u:hunter2@mq:99999/"}});
  EXPECT_NE(bad_port.find("port"), std::string::npos) << bad_port;
  EXPECT_EQ(bad_port.find("hunter2"), std::string::npos) << "never the password";
  EXPECT_NE(ValidationError({{"DOCGATE_OUTBOX_RETENTION_HOURS", "0"}})
                .find("DOCGATE_OUTBOX_RETENTION_HOURS"),
            std::string::npos);
}

// Claims are renewed while a batch is in flight, so they need not outlast the broker's timeouts,
// and a killed instance's events are taken over within seconds.
TEST(Config, TheClaimTtlIsAFewSecondsWhateverTheBrokersTimeoutsAndAtLeastOne) {
  EXPECT_EQ(Load({}).relay.claim_ttl, std::chrono::milliseconds(3000));
  EXPECT_EQ(ValidationError({{"DOCGATE_AMQP_URL", "amqp://mq"}}), "");
  EXPECT_EQ(ValidationError({{"DOCGATE_AMQP_URL", "amqp://mq"},
                             {"DOCGATE_AMQP_CONFIRM_TIMEOUT_MS", "60000"},
                             {"DOCGATE_OUTBOX_CLAIM_TTL_MS", "1000"}}),
            "");
  const std::string short_claim = ValidationError({{"DOCGATE_OUTBOX_CLAIM_TTL_MS", "999"}});
  EXPECT_NE(short_claim.find("DOCGATE_OUTBOX_CLAIM_TTL_MS must be at least 1000"),
            std::string::npos)
      << short_claim;
}

TEST(Config, InboxRetentionFollowsTheOutboxsAndIsNeverShorter) {
  EXPECT_EQ(Load({}).janitor.inbox_retention, std::chrono::hours(168));
  EXPECT_EQ(Load({{"DOCGATE_OUTBOX_RETENTION_HOURS", "336"}}).janitor.inbox_retention,
            std::chrono::hours(336));
  EXPECT_EQ(Load({{"DOCGATE_INBOX_RETENTION_HOURS", "720"}}).janitor.inbox_retention,
            std::chrono::hours(720));
  EXPECT_EQ(ValidationError({{"DOCGATE_INBOX_RETENTION_HOURS", "168"}}), "");
  const std::string shorter = ValidationError(
      {{"DOCGATE_OUTBOX_RETENTION_HOURS", "48"}, {"DOCGATE_INBOX_RETENTION_HOURS", "24"}});
  EXPECT_NE(shorter.find("DOCGATE_INBOX_RETENTION_HOURS must be at least "
                         "DOCGATE_OUTBOX_RETENTION_HOURS (48)"),
            std::string::npos)
      << shorter;
  EXPECT_NE(ValidationError({{"DOCGATE_INBOX_RETENTION_HOURS", "0"}})
                .find("DOCGATE_INBOX_RETENTION_HOURS"),
            std::string::npos);
}

TEST(Config, IdempotencyTtlIsReadInHoursAndBounded) {
  EXPECT_EQ(Load({}).idempotency.ttl, std::chrono::hours(24));
  EXPECT_EQ(Load({{"DOCGATE_IDEMPOTENCY_TTL_HOURS", "48"}}).idempotency.ttl,
            std::chrono::hours(48));
  EXPECT_EQ(ValidationError({{"DOCGATE_IDEMPOTENCY_TTL_HOURS", "48"}}), "");
  for (const char* bad : {"0", "-1", "8761"}) {
    EXPECT_NE(ValidationError({{"DOCGATE_IDEMPOTENCY_TTL_HOURS", bad}})
                  .find("DOCGATE_IDEMPOTENCY_TTL_HOURS"),
              std::string::npos)
        << bad;
  }
  EXPECT_NE(ErrorOf([] {
              Load({{"DOCGATE_IDEMPOTENCY_TTL_HOURS", "1d"}});
            }).find("DOCGATE_IDEMPOTENCY_TTL_HOURS"),
            std::string::npos);
}

TEST(Config, AMongoDbUriIsCheckedAndItsPasswordNeverEchoed) {
  EXPECT_EQ(Load({{"DOCGATE_MONGODB_URI", "mongodb://localhost/kb"}}).mongo.uri,
            "mongodb://localhost/kb");
  EXPECT_NO_THROW(ValidateConfig(Load({{"DOCGATE_MONGODB_URI", "mongodb://localhost/kb"}})));
  const std::string error =
      ValidationError({{"DOCGATE_MONGODB_URI", "mongodb://u:hunter2@/kb"}});
  EXPECT_NE(error.find("DOCGATE_MONGODB_URI"), std::string::npos) << error;
  EXPECT_EQ(error.find("hunter2"), std::string::npos) << error;
  EXPECT_NE(ValidationError({{"DOCGATE_MONGODB_URI", "http://localhost"}}).find("DOCGATE_MONGODB_URI"),
            std::string::npos);
  EXPECT_NE(ValidationError({{"DOCGATE_MONGODB_TIMEOUT_MS", "0"}}).find("DOCGATE_MONGODB_TIMEOUT_MS"),
            std::string::npos);
}

TEST(Config, ConsumerSettingsAreReadAndChecked) {
  const Config config = Load({{"DOCGATE_CONSUMER_MAX_ATTEMPTS", "7"},
                              {"DOCGATE_CHUNK_MAX_BYTES", "2000"},
                              {"DOCGATE_CHUNK_OVERLAP_BYTES", "100"},
                              {"DOCGATE_RECONCILE_STUCK_AFTER_MS", "60000"},
                              {"DOCGATE_AMQP_PREFETCH", "4"}});
  EXPECT_EQ(config.consumers.runner.max_attempts, 7);
  EXPECT_EQ(config.consumers.chunker.max_bytes, 2000u);
  EXPECT_EQ(config.consumers.chunker.overlap_bytes, 100u);
  EXPECT_EQ(config.consumers.reconciler.stuck_after, std::chrono::milliseconds(60000));
  EXPECT_EQ(config.amqp.prefetch, 4);
  EXPECT_TRUE(config.consumers.in_serve);
  EXPECT_NE(ValidationError({{"DOCGATE_CONSUMERS", "off"}}).find("DOCGATE_AMQP_URL"),
            std::string::npos)
      << "without a broker nothing else would consume";
  EXPECT_NE(ValidationError({{"DOCGATE_CHUNK_OVERLAP_BYTES", "1000"}}).find("DOCGATE_CHUNK"),
            std::string::npos);
  EXPECT_NE(ValidationError({{"DOCGATE_CONSUMER_MAX_ATTEMPTS", "0"}})
                .find("DOCGATE_CONSUMER_MAX_ATTEMPTS"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] { Load({{"DOCGATE_CONSUMERS", "maybe"}}); }).find("DOCGATE_CONSUMERS"),
            std::string::npos);
}

TEST(Config, FlagsOverrideTheEnvironment) {
  const auto env = WithOverrides(Lookup({{"DOCGATE_LISTEN", "127.0.0.1:1"}}),
                                 {{"DOCGATE_LISTEN", "127.0.0.1:2"}});
  EXPECT_EQ(LoadConfig(env).http.port, 2);
}

TEST(Config, SqlitePathAndSecretFile) {
  EXPECT_EQ(SqlitePath("sqlite://./data/docgate.db"), "./data/docgate.db");
  EXPECT_EQ(SqlitePath("sqlite:///var/x.db"), "/var/x.db");
  EXPECT_FALSE(SqlitePath("postgresql://x"));
  Config config;
  EXPECT_EQ(JwtSecretFile(config), "./data/jwt_secret");
  config.database.url = "sqlite://docgate.db";
  EXPECT_EQ(JwtSecretFile(config), "./jwt_secret");
  config.auth.secret_file = "/etc/docgate/secret";
  EXPECT_EQ(JwtSecretFile(config), "/etc/docgate/secret");
}

class JwtSecretTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("docgate-config-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    config_.database.url = "sqlite://" + (dir_ / "nested" / "docgate.db").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
  Config config_;
  FakeRandom random_;
};

TEST_F(JwtSecretTest, AnExplicitSecretWins) {
  config_.auth.jwt_secret = "explicit";
  EXPECT_EQ(ResolveJwtSecret(config_, random_), "explicit");
  EXPECT_FALSE(std::filesystem::exists(dir_));
}

TEST_F(JwtSecretTest, GeneratedOnceWithMode0600AndReused) {
  const std::string first = ResolveJwtSecret(config_, random_);
  EXPECT_EQ(first.size(), 64u);  // 256 bits in hex
  const auto file = dir_ / "nested" / "jwt_secret";
  ASSERT_TRUE(std::filesystem::exists(file));
  struct stat info {};
  ASSERT_EQ(::stat(file.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat((dir_ / "nested").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u) << "the data directory it creates is the owner's alone";
  EXPECT_EQ(ResolveJwtSecret(config_, random_), first);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_ / "nested"),
                          std::filesystem::directory_iterator{}),
            1);
}

TEST_F(JwtSecretTest, AnEmptySecretFileIsAnError) {
  std::filesystem::create_directories(dir_ / "nested");
  std::ofstream(dir_ / "nested" / "jwt_secret") << "\n";
  EXPECT_NE(ErrorOf([&] { ResolveJwtSecret(config_, random_); }).find("empty"), std::string::npos);
}

// Only `docgate serve` creates the secret: a token signed with a secret made elsewhere (say, in
// another working directory) would be refused by the server.
TEST_F(JwtSecretTest, ReadingCreatesNothingAndSaysWhereItLooked) {
  const std::string problem = ErrorOf([&] { ReadJwtSecret(config_); });
  EXPECT_NE(problem.find((dir_ / "nested" / "jwt_secret").string()), std::string::npos) << problem;
  EXPECT_NE(problem.find("docgate serve"), std::string::npos) << problem;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "nested")) << "nothing was created";
  const std::string created = ResolveJwtSecret(config_, random_);
  EXPECT_EQ(ReadJwtSecret(config_), created);
  config_.auth.jwt_secret = "explicit-secret";
  EXPECT_EQ(ReadJwtSecret(config_), "explicit-secret");
}

TEST_F(JwtSecretTest, NonSqliteWithoutSecretIsAnError) {
  config_.database.url = "postgresql://localhost/docgate";
  EXPECT_NE(ErrorOf([&] { ResolveJwtSecret(config_, random_); }).find("DOCGATE_JWT_SECRET"),
            std::string::npos);
}

}  // namespace
}  // namespace docgate
