// The table of DOCGATE_* variables (runtime/config_table.h): LoadConfig parses each type by it,
// its defaults and bounds are what docgate enforces, every DOCGATE_* name of the sources is in it,
// docs/configuration.md is its rendering, and an unknown variable gets a warning naming the
// closest known one.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "runtime/config.h"
#include "runtime/config_reference.h"
#include "runtime/config_table.h"
#include "support/build_paths.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;
using Env = std::map<std::string, std::string, std::less<>>;

Config FromEnv(Env env) {
  return LoadConfig([env = std::move(env)](std::string_view name) -> std::optional<std::string> {
    if (const auto it = env.find(name); it != env.end()) return it->second;
    return std::nullopt;
  });
}

// The ConfigError of loading and validating `env`; "" when there is none.
std::string ProblemOf(Env env) {
  try {
    ValidateConfig(FromEnv(std::move(env)));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

const ConfigVariable& Variable(std::string_view name) {
  const ConfigVariable* variable = FindConfigVariable(name);
  if (variable == nullptr) throw std::logic_error("not in the table: " + std::string(name));
  return *variable;
}

// The value of `variable`'s field in `config`, as text.
std::string FieldText(const ConfigVariable& variable, Config& config) {
  return std::visit(
      [&](auto field) -> std::string {
        const auto& value = field(config);
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, HttpConfig>) {
          return value.address + ":" + std::to_string(value.port);
        } else if constexpr (std::is_same_v<T, std::string>) {
          return value;
        } else if constexpr (std::is_arithmetic_v<T>) {
          return std::to_string(value);
        } else {
          return std::to_string(value.count());
        }
      },
      variable.field);
}

TEST(ConfigTable, NamesEachVariableOnceWithADescriptionOfOneLine) {
  std::set<std::string_view> names;
  for (const ConfigVariable& variable : ConfigVariables()) {
    EXPECT_TRUE(variable.name.starts_with("DOCGATE_")) << variable.name;
    EXPECT_TRUE(names.insert(variable.name).second) << "twice: " << variable.name;
    EXPECT_FALSE(variable.description.empty()) << variable.name;
    EXPECT_EQ(variable.description.find('\n'), std::string_view::npos) << variable.name;
    EXPECT_EQ(variable.values.empty(),
              variable.type != ConfigType::kEnum && variable.type != ConfigType::kOnOff)
        << variable.name;
    if (!variable.default_from.empty()) {
      const ConfigVariable* from = FindConfigVariable(variable.default_from);
      ASSERT_NE(from, nullptr) << variable.name;
      EXPECT_EQ(from->field.index(), variable.field.index()) << "another type: " << variable.name;
    }
  }
  EXPECT_EQ(names.size(), 87u);
}

// The defaults docgate had before the table, as the reference shows them.
TEST(ConfigTable, DefaultsAreTheOnesDocgateHadBeforeTheTable) {
  const std::map<std::string_view, std::string_view> expected = {
      {"DOCGATE_LISTEN", "127.0.0.1:8080"},
      {"DOCGATE_HTTP_IO_THREADS", "2"},
      {"DOCGATE_HTTP_WORKERS", "DOCGATE_DB_POOL_SIZE"},
      {"DOCGATE_HTTP_READ_TIMEOUT_MS", "30000"},
      {"DOCGATE_HTTP_HEADER_TIMEOUT_MS", "10000"},
      {"DOCGATE_HTTP_BODY_LIMIT", "1048576"},
      {"DOCGATE_HTTP_MAX_CONNECTIONS", "1024"},
      {"DOCGATE_HTTP_QUEUE_LIMIT", "128"},
      {"DOCGATE_HTTP_QUEUE_TIMEOUT_MS", "5000"},
      {"DOCGATE_SHUTDOWN_GRACE_MS", "30000"},
      {"DOCGATE_DATABASE_URL", "sqlite://./data/docgate.db"},
      {"DOCGATE_DB_POOL_SIZE", "4"},
      {"DOCGATE_DB_BUSY_TIMEOUT_MS", "5000"},
      {"DOCGATE_DB_CONNECT_TIMEOUT_MS", "5000"},
      {"DOCGATE_DB_STATEMENT_TIMEOUT_MS", "5000"},
      {"DOCGATE_JWT_SECRET", "(none)"},
      {"DOCGATE_JWT_SECRET_FILE", "(none)"},
      {"DOCGATE_OIDC_ISSUER", "(none)"},
      {"DOCGATE_OIDC_CLIENT_ID", "(none)"},
      {"DOCGATE_REVIEW_QUORUM", "1"},
      {"DOCGATE_OIDC_CLIENT_SECRET", "(none)"},
      {"DOCGATE_OIDC_SCOPES", "openid profile"},
      {"DOCGATE_PUBLIC_URL", "(none)"},
      {"DOCGATE_SESSION_TTL_HOURS", "8"},
      {"DOCGATE_OIDC_AUDIENCE", "(none)"},
      {"DOCGATE_OIDC_ROLES_CLAIM", "roles"},
      {"DOCGATE_OIDC_ROLE_MAP", "(none)"},
      {"DOCGATE_OIDC_CA_FILE", "(none)"},
      {"DOCGATE_OIDC_TIMEOUT_MS", "5000"},
      {"DOCGATE_OIDC_KEYS_REFRESH_MS", "30000"},
      {"DOCGATE_LOCK_GATE", "on"},
      {"DOCGATE_LOCK_PREFIX", "lock:"},
      {"DOCGATE_REDIS_URL", "(none)"},
      {"DOCGATE_REDIS_CA_FILE", "(none)"},
      {"DOCGATE_REDIS_CONNECT_TIMEOUT_MS", "5000"},
      {"DOCGATE_REDIS_TIMEOUT_MS", "1000"},
      {"DOCGATE_REDIS_POOL_SIZE", "8"},
      {"DOCGATE_REDIS_BREAKER_MAX_MS", "10000"},
      {"DOCGATE_REDIS_LEASE_MAX_HOLD_MS", "60000"},
      {"DOCGATE_AMQP_URL", "(none)"},
      {"DOCGATE_AMQP_CA_FILE", "(none)"},
      {"DOCGATE_AMQP_EXCHANGE", "docgate.events"},
      {"DOCGATE_AMQP_QUEUE", "docgate.consumers"},
      {"DOCGATE_AMQP_CONNECT_TIMEOUT_MS", "5000"},
      {"DOCGATE_AMQP_CONFIRM_TIMEOUT_MS", "10000"},
      {"DOCGATE_AMQP_PREFETCH", "16"},
      {"DOCGATE_AMQP_REQUEST_TIMEOUT_MS", "5000"},
      {"DOCGATE_OUTBOX_BATCH_SIZE", "100"},
      {"DOCGATE_OUTBOX_POLL_MS", "1000"},
      {"DOCGATE_OUTBOX_RETRY_MAX_MS", "60000"},
      {"DOCGATE_OUTBOX_CLAIM_TTL_MS", "3000"},
      {"DOCGATE_OUTBOX_RETENTION_HOURS", "168"},
      {"DOCGATE_IDEMPOTENCY_TTL_HOURS", "24"},
      {"DOCGATE_CONSUMERS", "on"},
      {"DOCGATE_CONSUMER_MAX_ATTEMPTS", "5"},
      {"DOCGATE_CONSUMER_RETRY_MAX_MS", "60000"},
      {"DOCGATE_CONSUMER_BATCH", "16"},
      {"DOCGATE_INBOX_RETENTION_HOURS", "DOCGATE_OUTBOX_RETENTION_HOURS"},
      {"DOCGATE_CHUNK_MAX_BYTES", "1000"},
      {"DOCGATE_CHUNK_OVERLAP_BYTES", "150"},
      {"DOCGATE_RECONCILE_INTERVAL_MS", "60000"},
      {"DOCGATE_RECONCILE_STUCK_AFTER_MS", "300000"},
      {"DOCGATE_MONGODB_URI", "(none)"},
      {"DOCGATE_MONGODB_CONNECT_TIMEOUT_MS", "5000"},
      {"DOCGATE_MONGODB_TIMEOUT_MS", "5000"},
      {"DOCGATE_EMBEDDINGS_URL", "(none)"},
      {"DOCGATE_EMBEDDINGS_MODEL", "(none)"},
      {"DOCGATE_EMBEDDINGS_API_KEY", "(none)"},
      {"DOCGATE_EMBEDDINGS_DIMENSIONS", "(none)"},
      {"DOCGATE_EMBEDDINGS_BATCH", "32"},
      {"DOCGATE_EMBEDDINGS_CONCURRENCY", "2"},
      {"DOCGATE_EMBEDDINGS_CA_FILE", "(none)"},
      {"DOCGATE_EMBEDDINGS_CONNECT_TIMEOUT_MS", "5000"},
      {"DOCGATE_EMBEDDINGS_TIMEOUT_MS", "60000"},
      {"DOCGATE_EMBEDDINGS_QUERY_TIMEOUT_MS", "2000"},
      {"DOCGATE_EMBEDDINGS_QUERY_CONCURRENCY", "4"},
      {"DOCGATE_EMBEDDINGS_MAX_ATTEMPTS", "4"},
      {"DOCGATE_EMBEDDINGS_RETRY_MAX_MS", "30000"},
      {"DOCGATE_EMBEDDINGS_BREAKER_MAX_MS", "60000"},
      {"DOCGATE_IMPORT_MAX_BYTES", "20971520"},
      {"DOCGATE_IMPORT_TIMEOUT_MS", "30000"},
      {"DOCGATE_IMPORT_MEMORY_BYTES", "2147483648"},
      {"DOCGATE_IMPORT_MAX_OUTPUT_BYTES", "8388608"},
      {"DOCGATE_IMPORT_PANDOC", "pandoc"},
      {"DOCGATE_IMPORT_PDFTOTEXT", "pdftotext"},
      {"DOCGATE_LOG_LEVEL", "info"},
      {"DOCGATE_LOG_FORMAT", "(none)"},
  };
  ASSERT_EQ(expected.size(), ConfigVariables().size());
  for (const ConfigVariable& variable : ConfigVariables()) {
    ASSERT_TRUE(expected.contains(variable.name)) << variable.name;
    EXPECT_EQ(DefaultText(variable), expected.at(variable.name)) << variable.name;
  }
  Config loaded = FromEnv({});
  Config defaults;
  EXPECT_EQ(loaded.http.worker_threads, 4);
  EXPECT_EQ(loaded.janitor.inbox_retention, 168h);
  for (const ConfigVariable& variable : ConfigVariables()) {
    if (variable.default_from.empty()) {
      EXPECT_EQ(FieldText(variable, loaded), FieldText(variable, defaults)) << variable.name;
    }
  }
}

// Each variable sets its own field and no other (but the ones whose default follows it).
TEST(ConfigTable, EachVariableSetsItsOwnField) {
  Config defaults = FromEnv({});
  for (const ConfigVariable& variable : ConfigVariables()) {
    std::string text = "sample";
    if (variable.type == ConfigType::kListen) {
      text = "10.1.2.3:9999";
    } else if (!variable.values.empty()) {
      text = variable.values.back() == DefaultText(variable) ? variable.values.front()
                                                             : variable.values.back();
    } else if (variable.min || variable.max || variable.type == ConfigType::kInteger) {
      text = "7";
    }
    Config loaded = FromEnv({{std::string(variable.name), text}});
    EXPECT_NE(FieldText(variable, loaded), FieldText(variable, defaults)) << variable.name;
    for (const ConfigVariable& other : ConfigVariables()) {
      if (&other == &variable || other.default_from == variable.name) continue;
      EXPECT_EQ(FieldText(other, loaded), FieldText(other, defaults))
          << variable.name << " also set " << other.name;
    }
  }
}

TEST(ConfigTable, ParsesNumbersAsTheirFieldsTypeAndNamesTheVariable) {
  EXPECT_EQ(FromEnv({{"DOCGATE_HTTP_IO_THREADS", "3"}}).http.io_threads, 3);
  EXPECT_EQ(FromEnv({{"DOCGATE_HTTP_BODY_LIMIT", "2048"}}).http.body_limit, 2048u);
  EXPECT_EQ(FromEnv({{"DOCGATE_DB_BUSY_TIMEOUT_MS", "250"}}).database.busy_timeout, 250ms);
  EXPECT_EQ(FromEnv({{"DOCGATE_IDEMPOTENCY_TTL_HOURS", "48"}}).idempotency.ttl, 48h);
  const std::vector<std::pair<std::string, std::string>> malformed = {
      {"DOCGATE_HTTP_IO_THREADS", "3 "},        {"DOCGATE_HTTP_IO_THREADS", "99999999999"},
      {"DOCGATE_HTTP_BODY_LIMIT", "-1"},        {"DOCGATE_DB_BUSY_TIMEOUT_MS", "1.5"},
      {"DOCGATE_OUTBOX_RETENTION_HOURS", "1d"}, {"DOCGATE_EMBEDDINGS_DIMENSIONS", "0x10"},
      {"DOCGATE_CHUNK_OVERLAP_BYTES", "+1"},    {"DOCGATE_REDIS_POOL_SIZE", "eight"}};
  for (const auto& [name, text] : malformed) {
    EXPECT_EQ(ProblemOf({{name, text}}), name + " must be an integer, got '" + text + "'");
  }
  // A number of the right form is the validator's to bound.
  EXPECT_EQ(ProblemOf({{"DOCGATE_HTTP_IO_THREADS", "257"}}),
            "DOCGATE_HTTP_IO_THREADS must be 1..256, got 257");
  EXPECT_EQ(ProblemOf({{"DOCGATE_DB_BUSY_TIMEOUT_MS", "-5"}}),
            "DOCGATE_DB_BUSY_TIMEOUT_MS must be a positive number of milliseconds, got -5");
}

TEST(ConfigTable, OnOffAndEnumsTakeOnlyTheirValues) {
  EXPECT_FALSE(FromEnv({{"DOCGATE_LOCK_GATE", "off"}}).gate.enabled);
  EXPECT_TRUE(FromEnv({{"DOCGATE_CONSUMERS", "on"}}).consumers.in_serve);
  EXPECT_EQ(ProblemOf({{"DOCGATE_LOCK_GATE", "ON"}}),
            "DOCGATE_LOCK_GATE must be on or off, got 'ON'");
  EXPECT_EQ(ProblemOf({{"DOCGATE_CONSUMERS", "yes"}}),
            "DOCGATE_CONSUMERS must be on or off, got 'yes'");
  EXPECT_EQ(FromEnv({{"DOCGATE_LOG_LEVEL", "debug"}}).log.level, "debug");
  EXPECT_EQ(FromEnv({{"DOCGATE_LOG_LEVEL", "warning"}}).log.level, "warning");
  EXPECT_EQ(ProblemOf({{"DOCGATE_LOG_LEVEL", "loud"}}),
            "DOCGATE_LOG_LEVEL must be trace, debug, info, warn, error, critical or off, got "
            "'loud'");
  EXPECT_EQ(FromEnv({{"DOCGATE_LOG_FORMAT", "json"}}).log.format, "json");
  EXPECT_EQ(FromEnv({{"DOCGATE_LOG_FORMAT", "text"}}).log.format, "text");
  EXPECT_EQ(FromEnv({}).log.format, "") << "unset: chosen by whether stderr is a terminal";
  EXPECT_EQ(ProblemOf({{"DOCGATE_LOG_FORMAT", "JSON"}}),
            "DOCGATE_LOG_FORMAT must be json or text, got 'JSON'");
  EXPECT_EQ(ValuesText(Variable("DOCGATE_LOCK_GATE")), "on or off");
}

TEST(ConfigTable, TextIsTakenAsWrittenAndAListenAddressIsParsed) {
  const Config config = FromEnv({{"DOCGATE_JWT_SECRET", "s3cret value"},
                                 {"DOCGATE_JWT_SECRET_FILE", "/etc/docgate/secret"},
                                 {"DOCGATE_MONGODB_URI", "mongodb://db/kb"},
                                 {"DOCGATE_AMQP_QUEUE", "kb.ingest"},
                                 {"DOCGATE_LISTEN", "[::1]:0"}});
  EXPECT_EQ(config.auth.jwt_secret, "s3cret value");
  EXPECT_EQ(config.auth.secret_file, "/etc/docgate/secret");
  EXPECT_EQ(config.mongo.uri, "mongodb://db/kb");
  EXPECT_EQ(config.amqp.queue, "kb.ingest");
  EXPECT_EQ(config.http.address, "::1");
  EXPECT_EQ(config.http.port, 0);
  EXPECT_EQ(ProblemOf({{"DOCGATE_LISTEN", "8080"}}),
            "DOCGATE_LISTEN must be HOST:PORT (e.g. 127.0.0.1:8080), got '8080': no port");
}

TEST(ConfigTable, AnUnsetVariableFollowsTheOneItsDefaultNames) {
  EXPECT_EQ(FromEnv({{"DOCGATE_DB_POOL_SIZE", "9"}}).http.worker_threads, 9);
  EXPECT_EQ(
      FromEnv({{"DOCGATE_DB_POOL_SIZE", "9"}, {"DOCGATE_HTTP_WORKERS", "3"}}).http.worker_threads,
      3);
  EXPECT_EQ(FromEnv({{"DOCGATE_OUTBOX_RETENTION_HOURS", "48"}}).janitor.inbox_retention, 48h);
  EXPECT_EQ(FromEnv({{"DOCGATE_OUTBOX_RETENTION_HOURS", "48"}, {"DOCGATE_HTTP_WORKERS", ""}})
                .http.worker_threads,
            4)
      << "an empty variable counts as unset";
}

// What a bound needs besides the variable itself to be checked (the table's rule says so).
Env ContextOf(const ConfigVariable& variable) {
  Env env;
  if (variable.component == ConfigComponent::kEmbeddings) {
    env = {{"DOCGATE_EMBEDDINGS_URL", "http://127.0.0.1:8000/v1"},
           {"DOCGATE_EMBEDDINGS_MODEL", "m"},
           {"DOCGATE_EMBEDDINGS_DIMENSIONS", "8"}};
  }
  if (variable.name == "DOCGATE_INBOX_RETENTION_HOURS") env["DOCGATE_OUTBOX_RETENTION_HOURS"] = "1";
  if (variable.name == "DOCGATE_CHUNK_MAX_BYTES") env["DOCGATE_CHUNK_OVERLAP_BYTES"] = "0";
  return env;
}

// The bounds the reference states are the ones ValidateConfig enforces: each one is accepted, the
// next value beyond it refused with a message that names the variable.
TEST(ConfigTable, TheBoundsAreTheValidatorsBounds) {
  int bounded = 0;
  for (const ConfigVariable& variable : ConfigVariables()) {
    const std::string name(variable.name);
    const auto check = [&](std::int64_t inside, std::int64_t outside) {
      Env env = ContextOf(variable);
      env[name] = std::to_string(inside);
      EXPECT_EQ(ProblemOf(env), "") << name << "=" << inside;
      env[name] = std::to_string(outside);
      EXPECT_NE(ProblemOf(env).find(name), std::string::npos) << name << "=" << outside;
    };
    if (variable.min) check(*variable.min, *variable.min - 1);
    if (variable.max) check(*variable.max, *variable.max + 1);
    if (variable.min || variable.max) ++bounded;
    const bool number = variable.type == ConfigType::kInteger ||
                        variable.type == ConfigType::kMillis || variable.type == ConfigType::kHours;
    EXPECT_TRUE(!number || variable.min || !variable.rule.empty()) << name << " has no bound";
  }
  EXPECT_EQ(bounded, 56);
}

// Every DOCGATE_* name written in src/ (code, messages, comments, the console, the OpenAPI
// document) is a variable of the table: a variable cannot be read, or named to the operator,
// without the table knowing it. A name ending in '_' is a family (DOCGATE_DB_*). The unknown-
// variable warning's files name what is no variable on purpose (the tools' names, a typo).
TEST(ConfigTable, EveryDocgateNameInTheSourcesIsInTheTable) {
  const std::filesystem::path root = testing::BesideExecutable(DOCGATE_SOURCE_TREE);
  ASSERT_TRUE(std::filesystem::is_directory(root)) << root;
  std::set<std::string> unknown;
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    const std::string relative = entry.path().lexically_relative(root).string();
    if (!entry.is_regular_file() || relative.starts_with("runtime/config_reference.")) continue;
    ++files;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (auto at = text.find("DOCGATE_"); at != std::string::npos;
         at = text.find("DOCGATE_", at + 1)) {
      auto end = at;
      while (end < text.size() &&
             (std::isupper(static_cast<unsigned char>(text[end])) ||
              std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '_')) {
        ++end;
      }
      const std::string name = text.substr(at, end - at);
      if (name.ends_with('_') || name.starts_with("DOCGATE_TEST_")) continue;
      if (FindConfigVariable(name) == nullptr) {
        unknown.insert(name + " in " + relative);
      }
    }
  }
  EXPECT_GT(files, 100);
  for (const std::string& name : unknown) {
    ADD_FAILURE() << name << ": add it to the table in src/runtime/config_table.cpp";
  }
}

TEST(ConfigReference, DocsConfigurationMdIsUpToDate) {
  const std::string path = testing::BesideExecutable(DOCGATE_CONFIG_REFERENCE);
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path;
  std::ostringstream written;
  written << in.rdbuf();
  EXPECT_TRUE(written.str() == ConfigReference())
      << path << " is stale: regenerate it with "
      << "`./build/docgate config-reference > docs/configuration.md` and commit it";
}

TEST(ConfigReference, ListsEveryVariableOnceUnderItsComponent) {
  const std::string reference = ConfigReference();
  for (const ConfigVariable& variable : ConfigVariables()) {
    const std::string cell = "| `" + std::string(variable.name) + "` |";
    const auto at = reference.find(cell);
    ASSERT_NE(at, std::string::npos) << variable.name;
    EXPECT_EQ(reference.find(cell, at + 1), std::string::npos) << variable.name;
    const auto heading = reference.rfind("\n## ", at);
    EXPECT_EQ(reference.substr(heading + 4, ComponentTitle(variable.component).size()),
              ComponentTitle(variable.component))
        << variable.name;
  }
  EXPECT_NE(reference.find("| `DOCGATE_DB_POOL_SIZE` | integer | `4` | 1..1024 |"),
            std::string::npos);
  EXPECT_NE(reference.find("| `DOCGATE_HTTP_WORKERS` | integer | as `DOCGATE_DB_POOL_SIZE` |"),
            std::string::npos);
  EXPECT_NE(reference.find("| `DOCGATE_JWT_SECRET` | secret | (none) |"), std::string::npos);
  EXPECT_NE(reference.find("| `DOCGATE_LOG_LEVEL` | enum | `info` | `trace`, `debug`,"),
            std::string::npos);
}

TEST(UnknownVariableWarnings, NameTheClosestKnownVariable) {
  const std::vector<std::string> names = {"DOCGATE_LISTN", "DOCGATE_REDIS_TIMEOUT",
                                          "DOCGATE_EMBEDDING_URL", "DOCGATE_POOL_SIZE"};
  EXPECT_EQ(UnknownVariableWarnings(names),
            (std::vector<std::string>{
                "unknown variable DOCGATE_LISTN is ignored; did you mean DOCGATE_LISTEN?",
                "unknown variable DOCGATE_REDIS_TIMEOUT is ignored; did you mean "
                "DOCGATE_REDIS_TIMEOUT_MS?",
                "unknown variable DOCGATE_EMBEDDING_URL is ignored; did you mean "
                "DOCGATE_EMBEDDINGS_URL?",
                "unknown variable DOCGATE_POOL_SIZE is ignored; did you mean "
                "DOCGATE_DB_POOL_SIZE?"}));
}

TEST(UnknownVariableWarnings, SuggestNothingFarAndWarnOfNoKnownOrToolingName) {
  const std::vector<std::string> far = {"DOCGATE_FOO"};
  EXPECT_EQ(UnknownVariableWarnings(far),
            (std::vector<std::string>{"unknown variable DOCGATE_FOO is ignored "
                                      "(docs/configuration.md lists docgate's variables)"}));
  std::vector<std::string> quiet = {"PATH",
                                    "HOME",
                                    "docgate_listen",
                                    "DOCGATE_TEST_PG_URL",
                                    "DOCGATE_TEST_ANYTHING",
                                    "DOCGATE_BINARY",
                                    "DOCGATE_SERVICES_DIR"};
  for (const ConfigVariable& variable : ConfigVariables()) quiet.emplace_back(variable.name);
  EXPECT_EQ(UnknownVariableWarnings(quiet), std::vector<std::string>{});
}

TEST(UnknownVariableWarnings, TheProcessEnvironmentsNamesAreSeen) {
  ASSERT_EQ(::setenv("DOCGATE_LISTN", "127.0.0.1:1", 1), 0);
  const std::vector<std::string> names = ProcessEnvironmentNames();
  ::unsetenv("DOCGATE_LISTN");
  EXPECT_NE(std::find(names.begin(), names.end(), "DOCGATE_LISTN"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "DOCGATE_LISTN=127.0.0.1:1"), names.end());
}

}  // namespace
}  // namespace docgate
