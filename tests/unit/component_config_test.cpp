// The validators beside each component's settings struct (ValidateRedisConfig, ValidateRelayConfig,
// ...) and the ConfigCheck they share: the defaults pass, and each rule reports its own message,
// word for word the one ValidateConfig reports (tests/unit/config_test.cpp checks the composition).

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "adapters/amqp/amqp_config.h"
#include "adapters/http/http_server.h"
#include "adapters/mongo/mongo_config.h"
#include "adapters/redis/redis_config.h"
#include "app/consumer_runner.h"
#include "app/idempotency.h"
#include "core/config_check.h"
#include "runtime/config.h"
#include "worker/event_worker.h"
#include "worker/janitor.h"
#include "worker/outbox_relay.h"
#include "worker/reconciler.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;
using std::nullopt;

// `Settings` with its defaults, then `change`d (designated initializers would have to name the
// members without a default initializer, e.g. RedisConfig::url).
template <typename Settings, typename Change>
Settings With(Change change) {
  Settings settings;
  change(settings);
  return settings;
}

TEST(ConfigCheck, KeepsTheFirstProblemInTheOrderWritten) {
  EXPECT_EQ(ConfigCheck().Range("n", 5, 1, 10).Positive("t", 1ms).Problem(), nullopt);
  EXPECT_EQ(ConfigCheck().Range("n", 0, 1, 10).Positive("t", 0ms).Problem(),
            "n must be 1..10, got 0");
  EXPECT_EQ(ConfigCheck().Positive("t", -1ms).Range("n", 0, 1, 10).Problem(),
            "t must be a positive number of milliseconds, got -1");
  EXPECT_EQ(ConfigCheck().Require(true, "never").Require(false, "second").Problem(), "second");
  EXPECT_EQ(ConfigCheck().Include(nullopt).Include("other's").Require(false, "x").Problem(),
            "other's");
  EXPECT_EQ(ConfigCheck().Range<std::size_t>("size", 11, 1, 10).Problem(),
            "size must be 1..10, got 11");
}

TEST(RedisConfig, DefaultsPassAndEachRuleNamesItsVariable) {
  EXPECT_EQ(ValidateRedisConfig(RedisConfig{}), nullopt);
  EXPECT_EQ(
      ValidateRedisConfig(With<RedisConfig>([](auto& c) { c.url = "rediss://u:p@cache:6380/2"; })),
      nullopt);
  const auto bad_url = ValidateRedisConfig(
      With<RedisConfig>([](auto& c) { c.url = "redis://u:hunter2@cache:99999"; }));
  ASSERT_TRUE(bad_url);
  EXPECT_EQ(bad_url->rfind("DOCGATE_REDIS_URL must be redis://[user:password@]host[:port][/db], "
                           "rediss://..., or redis+sentinel://",
                           0),
            0u)
      << *bad_url;
  EXPECT_EQ(ValidateRedisConfig(With<RedisConfig>(
                [](auto& c) { c.url = "redis+sentinel://u:p@s1:26379,s2/mymaster/1"; })),
            nullopt);
  EXPECT_EQ(bad_url->find("hunter2"), std::string::npos) << *bad_url;
  EXPECT_EQ(ValidateRedisConfig(With<RedisConfig>([](auto& c) { c.connect_timeout = 0ms; })),
            "DOCGATE_REDIS_CONNECT_TIMEOUT_MS must be a positive number of milliseconds, got 0");
  EXPECT_EQ(ValidateRedisConfig(With<RedisConfig>([](auto& c) { c.command_timeout = -5ms; })),
            "DOCGATE_REDIS_TIMEOUT_MS must be a positive number of milliseconds, got -5");
  EXPECT_EQ(ValidateRedisConfig(With<RedisConfig>([](auto& c) { c.pool_size = 1025; })),
            "DOCGATE_REDIS_POOL_SIZE must be 1..1024, got 1025");
  EXPECT_EQ(
      ValidateRedisConfig(With<RedisConfig>([](auto& c) { c.breaker_initial = 0ms; })),
      "the Redis breaker's initial interval must be a positive number of milliseconds, got 0");
  EXPECT_EQ(ValidateRedisConfig(With<RedisConfig>([](auto& c) {
              c.breaker_initial = 500ms;
              c.breaker_max = 499ms;
            })),
            "DOCGATE_REDIS_BREAKER_MAX_MS must be at least 500");
  EXPECT_EQ(ValidateRedisConfig(With<RedisConfig>([](auto& c) { c.lease_max_hold = 0ms; })),
            "DOCGATE_REDIS_LEASE_MAX_HOLD_MS must be a positive number of milliseconds, got 0");
}

TEST(AmqpConfig, DefaultsPassWithoutABrokerAndEachRuleNamesItsVariable) {
  EXPECT_EQ(ValidateAmqpConfig(AmqpConfig{}), nullopt);
  EXPECT_EQ(ValidateAmqpConfig(With<AmqpConfig>([](auto& c) { c.url = "amqps://u:p@mq:5671/v"; })),
            nullopt);
  EXPECT_EQ(ValidateAmqpConfig(With<AmqpConfig>([](auto& c) { c.exchange = ""; })), nullopt)
      << "no broker, no exchange";
  EXPECT_EQ(ValidateAmqpConfig(With<AmqpConfig>([](auto& c) {
              c.url = "amqp://mq";
              c.exchange = "";
            })),
            "DOCGATE_AMQP_EXCHANGE must not be empty");
  const auto bad_url =
      ValidateAmqpConfig(With<AmqpConfig>([](auto& c) { c.url = "amqp://u:hunter2@mq:99999/"; }));
  ASSERT_TRUE(bad_url);
  EXPECT_EQ(bad_url->rfind("DOCGATE_AMQP_URL must be amqp://[user:password@]host[:port][/vhost]"
                           "[?heartbeat=SECONDS] or amqps://...: ",
                           0),
            0u)
      << *bad_url;
  EXPECT_EQ(bad_url->find("hunter2"), std::string::npos) << *bad_url;
  EXPECT_EQ(ValidateAmqpConfig(With<AmqpConfig>([](auto& c) { c.connect_timeout = 0ms; })),
            "DOCGATE_AMQP_CONNECT_TIMEOUT_MS must be a positive number of milliseconds, got 0");
  EXPECT_EQ(ValidateAmqpConfig(With<AmqpConfig>([](auto& c) { c.confirm_timeout = 0ms; })),
            "DOCGATE_AMQP_CONFIRM_TIMEOUT_MS must be a positive number of milliseconds, got 0");
  EXPECT_EQ(ValidateAmqpConfig(With<AmqpConfig>([](auto& c) { c.request_timeout = 0ms; })),
            "DOCGATE_AMQP_REQUEST_TIMEOUT_MS must be a positive number of milliseconds, got 0");
  EXPECT_EQ(ValidateAmqpConfig(With<AmqpConfig>([](auto& c) { c.prefetch = 0; })),
            "DOCGATE_AMQP_PREFETCH must be 1..65535, got 0");
}

TEST(MongoConfig, DefaultsPassAndTheUriNeverEchoesItsPassword) {
  EXPECT_EQ(ValidateMongoConfig(MongoConfig{}), nullopt);
  EXPECT_EQ(
      ValidateMongoConfig(With<MongoConfig>([](auto& c) { c.uri = "mongodb://localhost/kb"; })),
      nullopt);
  const auto bad_uri =
      ValidateMongoConfig(With<MongoConfig>([](auto& c) { c.uri = "mongodb://u:hunter2@/kb"; }));
  ASSERT_TRUE(bad_uri);
  EXPECT_EQ(bad_uri->rfind("DOCGATE_MONGODB_URI: ", 0), 0u) << *bad_uri;
  EXPECT_EQ(bad_uri->find("hunter2"), std::string::npos) << *bad_uri;
  EXPECT_EQ(ValidateMongoConfig(With<MongoConfig>([](auto& c) { c.connect_timeout = 0ms; })),
            "DOCGATE_MONGODB_CONNECT_TIMEOUT_MS must be a positive number of milliseconds, got 0");
  EXPECT_EQ(ValidateMongoConfig(With<MongoConfig>([](auto& c) { c.operation_timeout = 0ms; })),
            "DOCGATE_MONGODB_TIMEOUT_MS must be a positive number of milliseconds, got 0");
}

TEST(HttpConfig, DefaultsPassAndEachRuleNamesItsVariable) {
  EXPECT_EQ(ValidateHttpConfig(HttpConfig{}), nullopt);
  EXPECT_EQ(ValidateHttpConfig(HttpConfig{.address = "::1"}), nullopt);
  EXPECT_EQ(ValidateHttpConfig(HttpConfig{.address = "localhost"}),
            "the listen address must be an IP address, got 'localhost'");
  EXPECT_EQ(ValidateHttpConfig(HttpConfig{.io_threads = 257}),
            "DOCGATE_HTTP_IO_THREADS must be 1..256, got 257");
  EXPECT_EQ(ValidateHttpConfig(HttpConfig{.worker_threads = 0}),
            "DOCGATE_HTTP_WORKERS must be 1..1024, got 0");
  EXPECT_EQ(ValidateHttpConfig(HttpConfig{.read_timeout = 0ms}),
            "DOCGATE_HTTP_READ_TIMEOUT_MS must be a positive number of milliseconds, got 0");
  EXPECT_EQ(ValidateHttpConfig(HttpConfig{.body_limit = (std::size_t{1} << 30) + 1}),
            "DOCGATE_HTTP_BODY_LIMIT must be 1..1073741824, got 1073741825");
  EXPECT_EQ(ValidateHttpConfig(HttpConfig{.max_connections = 0}),
            "DOCGATE_HTTP_MAX_CONNECTIONS must be 1..1000000, got 0");
  EXPECT_EQ(ValidateHttpConfig(HttpConfig{.queue_limit = 1000001}),
            "DOCGATE_HTTP_QUEUE_LIMIT must be 1..1000000, got 1000001");
  EXPECT_EQ(ValidateHttpConfig(HttpConfig{.queue_timeout = 0ms}),
            "DOCGATE_HTTP_QUEUE_TIMEOUT_MS must be a positive number of milliseconds, got 0");
  EXPECT_EQ(ValidateHttpConfig(HttpConfig{.shutdown_grace = 0ms}), nullopt);
  EXPECT_EQ(ValidateHttpConfig(HttpConfig{.shutdown_grace = -1ms}),
            "DOCGATE_SHUTDOWN_GRACE_MS must be 0.." +
                std::to_string(std::numeric_limits<std::int64_t>::max()) + ", got -1");
  EXPECT_TRUE(IsIpLiteral("0.0.0.0"));
  EXPECT_TRUE(IsIpLiteral("fe80::1"));
  EXPECT_FALSE(IsIpLiteral("[::1]"));
  EXPECT_FALSE(IsIpLiteral("example.com"));
}

TEST(RelayConfig, DefaultsPassAndEachRuleNamesItsSetting) {
  EXPECT_EQ(ValidateRelayConfig(RelayConfig{}), nullopt);
  EXPECT_EQ(ValidateRelayConfig(RelayConfig{.batch_size = 0}),
            "DOCGATE_OUTBOX_BATCH_SIZE must be 1..10000, got 0");
  EXPECT_EQ(ValidateRelayConfig(RelayConfig{.idle_poll = 0ms}),
            "DOCGATE_OUTBOX_POLL_MS must be a positive number of milliseconds, got 0");
  EXPECT_EQ(ValidateRelayConfig(RelayConfig{.initial_backoff = 0ms}),
            "the relay initial backoff must be a positive number of milliseconds, got 0");
  EXPECT_EQ(ValidateRelayConfig(RelayConfig{.initial_backoff = 200ms, .max_backoff = 100ms}),
            "the relay max backoff must be at least its initial backoff");
  EXPECT_EQ(ValidateRelayConfig(RelayConfig{.retry_delay = 0ms}),
            "the relay retry delay must be a positive number of milliseconds, got 0");
  EXPECT_EQ(ValidateRelayConfig(RelayConfig{.retry_delay = 2000ms, .max_retry_delay = 1000ms}),
            "DOCGATE_OUTBOX_RETRY_MAX_MS must be at least 2000");
  EXPECT_EQ(ValidateRelayConfig(RelayConfig{.retention = std::chrono::hours(0)}),
            "DOCGATE_OUTBOX_RETENTION_HOURS must be 1..87600, got 0");
  EXPECT_EQ(ValidateRelayConfig(RelayConfig{.prune_batch = 100001}),
            "the outbox prune batch must be 1..100000, got 100001");
  EXPECT_EQ(ValidateRelayConfig(RelayConfig{.prune_interval = 0ms}),
            "the outbox prune interval must be a positive number of milliseconds, got 0");
  EXPECT_EQ(ValidateRelayConfig(RelayConfig{.claim_ttl = 1000ms}), nullopt);
  EXPECT_EQ(ValidateRelayConfig(RelayConfig{.claim_ttl = 999ms}),
            "DOCGATE_OUTBOX_CLAIM_TTL_MS must be at least 1000, got 999");
}

TEST(IdempotencyConfig, DefaultsPassAndEachRuleNamesItsSetting) {
  EXPECT_EQ(ValidateIdempotencyConfig(IdempotencyConfig{}), nullopt);
  EXPECT_EQ(ValidateIdempotencyConfig(IdempotencyConfig{.ttl = std::chrono::hours(8761)}),
            "DOCGATE_IDEMPOTENCY_TTL_HOURS must be 1..8760, got 8761");
  EXPECT_EQ(ValidateIdempotencyConfig(IdempotencyConfig{.lease = 0ms}),
            "the idempotency lease must be a positive number of milliseconds, got 0");
  EXPECT_EQ(ValidateIdempotencyConfig(IdempotencyConfig{.prune_batch = 0}),
            "the idempotency prune batch must be 1..100000, got 0");
}

TEST(JanitorConfig, DefaultsPassAndEachRuleNamesItsSetting) {
  EXPECT_EQ(ValidateJanitorConfig(JanitorConfig{}), nullopt);
  EXPECT_EQ(ValidateJanitorConfig(JanitorConfig{.interval = 0ms}),
            "the janitor interval must be a positive number of milliseconds, got 0");
  EXPECT_EQ(ValidateJanitorConfig(JanitorConfig{.inbox_retention = std::chrono::hours(87601)}),
            "DOCGATE_INBOX_RETENTION_HOURS must be 1..87600, got 87601");
  EXPECT_EQ(ValidateJanitorConfig(JanitorConfig{.inbox_prune_batch = 0}),
            "the inbox prune batch must be 1..100000, got 0");
}

TEST(ConsumersConfig, EachPartsValidatorNamesItsSetting) {
  EXPECT_EQ(ValidateConsumerRunnerConfig(ConsumerRunnerConfig{}), nullopt);
  EXPECT_EQ(ValidateConsumerRunnerConfig(ConsumerRunnerConfig{.max_attempts = 1001}),
            "DOCGATE_CONSUMER_MAX_ATTEMPTS must be 1..1000, got 1001");

  EXPECT_EQ(ValidateEventWorkerConfig(EventWorkerConfig{}), nullopt);
  EXPECT_EQ(ValidateEventWorkerConfig(EventWorkerConfig{.retry_delay = 0ms}),
            "the consumers' retry delay must be a positive number of milliseconds, got 0");
  EXPECT_EQ(ValidateEventWorkerConfig(
                EventWorkerConfig{.retry_delay = 3000ms, .max_retry_delay = 2000ms}),
            "DOCGATE_CONSUMER_RETRY_MAX_MS must be at least 3000");
  EXPECT_EQ(ValidateEventWorkerConfig(EventWorkerConfig{.receive_timeout = 0ms}),
            "the worker's receive timeout must be a positive number of milliseconds, got 0");
  EXPECT_EQ(ValidateEventWorkerConfig(EventWorkerConfig{.initial_backoff = 0ms}),
            "the worker's initial backoff must be a positive number of milliseconds, got 0");

  EXPECT_EQ(ValidateReconcilerConfig(ReconcilerConfig{}), nullopt);
  EXPECT_EQ(ValidateReconcilerConfig(ReconcilerConfig{.stuck_after = 0ms}),
            "DOCGATE_RECONCILE_STUCK_AFTER_MS must be a positive number of milliseconds, got 0");
  EXPECT_EQ(ValidateReconcilerConfig(ReconcilerConfig{.interval = 0ms}),
            "DOCGATE_RECONCILE_INTERVAL_MS must be a positive number of milliseconds, got 0");
  EXPECT_EQ(ValidateReconcilerConfig(ReconcilerConfig{.batch_size = 10001}),
            "the reconciler batch must be 1..10000, got 10001");
}

TEST(ConsumersConfig, ComposesItsPartsInOrder) {
  EXPECT_EQ(ValidateConsumersConfig(ConsumersConfig{}), nullopt);
  ConsumersConfig consumers;
  consumers.reconciler.batch_size = 0;
  EXPECT_EQ(ValidateConsumersConfig(consumers), "the reconciler batch must be 1..10000, got 0");
  consumers.chunker.overlap_bytes = consumers.chunker.max_bytes;
  const auto chunker = ValidateConsumersConfig(consumers);
  ASSERT_TRUE(chunker);
  EXPECT_EQ(chunker->rfind("DOCGATE_CHUNK_MAX_BYTES / DOCGATE_CHUNK_OVERLAP_BYTES: chunker ", 0),
            0u)
      << *chunker;
  consumers.worker.receive_timeout = 0ms;
  EXPECT_EQ(ValidateConsumersConfig(consumers),
            "the worker's receive timeout must be a positive number of milliseconds, got 0");
  consumers.runner.max_attempts = 0;
  EXPECT_EQ(ValidateConsumersConfig(consumers),
            "DOCGATE_CONSUMER_MAX_ATTEMPTS must be 1..1000, got 0");
}

TEST(DatabaseConfig, DefaultsPassAndEachRuleNamesItsVariable) {
  EXPECT_EQ(ValidateDatabaseConfig(DatabaseConfig{}), nullopt);
  EXPECT_EQ(ValidateDatabaseConfig(DatabaseConfig{.url = "postgres://db/docgate"}), nullopt);
  EXPECT_EQ(ValidateDatabaseConfig(DatabaseConfig{.url = "mysql://u:hunter2@db/docgate"}),
            "DOCGATE_DATABASE_URL must be sqlite://PATH or postgresql://..., got 'mysql://...'");
  EXPECT_EQ(ValidateDatabaseConfig(DatabaseConfig{.url = "sqlite://"}),
            "DOCGATE_DATABASE_URL sqlite:// needs a file path, e.g. sqlite://./data/docgate.db");
  EXPECT_EQ(ValidateDatabaseConfig(DatabaseConfig{.pool_size = 0}),
            "DOCGATE_DB_POOL_SIZE must be 1..1024, got 0");
  EXPECT_EQ(ValidateDatabaseConfig(DatabaseConfig{.busy_timeout = 0ms}),
            "DOCGATE_DB_BUSY_TIMEOUT_MS must be a positive number of milliseconds, got 0");
  EXPECT_EQ(ValidateDatabaseConfig(DatabaseConfig{.connect_timeout = 0ms}),
            "DOCGATE_DB_CONNECT_TIMEOUT_MS must be a positive number of milliseconds, got 0");
  EXPECT_EQ(ValidateDatabaseConfig(DatabaseConfig{.statement_timeout = 0ms}),
            "DOCGATE_DB_STATEMENT_TIMEOUT_MS must be a positive number of milliseconds, got 0");
}

TEST(GateAndLogConfig, DefaultsPassAndEachRuleNamesItsSetting) {
  EXPECT_EQ(ValidateGateConfig(GateConfig{}), nullopt);
  EXPECT_EQ(ValidateGateConfig(GateConfig{.submit_ttl = 0ms}),
            "the submit lock TTL must be a positive number of milliseconds, got 0");
  EXPECT_EQ(ValidateGateConfig(GateConfig{.review_ttl = 0ms}),
            "the review lock TTL must be a positive number of milliseconds, got 0");
  EXPECT_EQ(ValidateLogConfig(LogConfig{}), nullopt);
  EXPECT_EQ(ValidateLogConfig(LogConfig{.level = "warning", .format = ""}), nullopt);
  EXPECT_EQ(ValidateLogConfig(LogConfig{.level = "loud", .format = ""}),
            "DOCGATE_LOG_LEVEL must be trace, debug, info, warn, error, critical or off, got "
            "'loud'");
  EXPECT_EQ(ValidateLogConfig(LogConfig{.level = "info", .format = "json"}), nullopt);
  EXPECT_EQ(ValidateLogConfig(LogConfig{.level = "info", .format = "yaml"}),
            "DOCGATE_LOG_FORMAT must be json or text, got 'yaml'");
}

// The composition reports a component's message unchanged, and a rule spanning two components
// after both components' own checks.
TEST(Config, ValidateConfigReportsTheComponentsMessagesUnchanged) {
  Config config;
  config.relay.claim_ttl = 999ms;
  try {
    ValidateConfig(config);
    ADD_FAILURE() << "no ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), *ValidateRelayConfig(config.relay));
  }
  config = Config{};
  config.relay.retention = std::chrono::hours(48);
  config.janitor.inbox_retention = std::chrono::hours(24);
  config.janitor.inbox_prune_batch = 0;
  try {
    ValidateConfig(config);
    ADD_FAILURE() << "no ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "the inbox prune batch must be 1..100000, got 0");
  }
}

}  // namespace
}  // namespace docgate
