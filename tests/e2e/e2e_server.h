#pragma once

// The fixture of the end-to-end suites: one real docgate (runtime/application.h) per test, on the
// backend of the test parameter, driven over HTTP by e2e::HttpClient; tokens signed with its
// secret; helpers for the common requests and for problem+json assertions.

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <pthread.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <latch>
#include <map>
#include <cstdlib>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "adapters/http/http_server.h"
#include "adapters/http/jwt_auth.h"
#include "core/model.h"
#include "e2e/http_client.h"
#include "e2e/token_forge.h"
#include "fakes/fake_clock.h"
#include "fakes/recording_consumer.h"
#include "runtime/application.h"
#include "support/pg_test_database.h"

namespace docgate::e2e {

using namespace std::chrono_literals;
using nlohmann::json;
namespace http = boost::beast::http;

// A FakeClock whose Now() can be made to block once, to hold a request in flight: only a call from
// one of the HTTP server's threads blocks, never one from the relay, the janitor or the consumers,
// which read the same clock at any moment.
class GatedClock final : public Clock {
 public:
  TimePoint Now() override {
    std::unique_lock lock(mutex_);
    if (armed_ && OnAnHttpServerThread()) {
      armed_ = false;
      blocked_ = true;
      changed_.notify_all();
      changed_.wait(lock, [this] { return released_; });
    }
    return inner_.Now();
  }
  void Advance(std::chrono::milliseconds by) { inner_.Advance(by); }
  void ArmOnce() {
    std::lock_guard lock(mutex_);
    armed_ = true;
    released_ = false;
    blocked_ = false;
  }
  bool WaitUntilBlocked() {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, 10s, [this] { return blocked_; });
  }
  void Release() {
    std::lock_guard lock(mutex_);
    released_ = true;
    changed_.notify_all();
  }

 private:
  FakeClock inner_;
  static bool OnAnHttpServerThread() {
    char name[16] = {};
    pthread_getname_np(pthread_self(), name, sizeof name);
    return std::string_view(name).starts_with(kHttpThreadPrefix);
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  bool armed_ = false;
  bool blocked_ = false;
  bool released_ = false;
};

// The status and problem code of one racer's response.
struct Outcome {
  unsigned status = 0;
  std::string code;
};

// Sends one request per client, all released at once by a latch; each client has its own
// connection, opened before the start so that connecting does not spread the requests out. Client
// i talks to ports[i % ports.size()] (several instances on one database).
inline std::vector<HttpReply> RaceReplies(
    const std::vector<std::uint16_t>& ports, int clients,
    const std::function<HttpReply(HttpClient&, int)>& request) {
  std::vector<HttpReply> replies(clients);
  std::latch ready(clients);
  std::latch go(1);
  std::vector<std::thread> threads;
  for (int i = 0; i < clients; ++i) {
    threads.emplace_back([&, i] {
      HttpClient client(ports[i % ports.size()]);
      ready.count_down();
      go.wait();
      replies[i] = request(client, i);
    });
  }
  ready.wait();
  go.count_down();
  for (auto& t : threads) t.join();
  return replies;
}

// RaceReplies on one port, reduced to each racer's status and problem code.
inline std::vector<Outcome> Race(std::uint16_t port, int clients,
                                 const std::function<HttpReply(HttpClient&, int)>& request) {
  std::vector<Outcome> outcomes;
  for (const auto& reply : RaceReplies({port}, clients, request)) {
    Outcome& outcome = outcomes.emplace_back();
    outcome.status = reply.status();
    if (reply.status() >= 400) outcome.code = json::parse(reply.body())["code"];
  }
  return outcomes;
}

// The reviewers, one client each, race on one review: the even ones approve, the odd ones reject.
inline std::vector<Outcome> MixedDecisionRace(std::uint16_t port, const std::string& review,
                                              const std::vector<Headers>& reviewers) {
  return Race(port, static_cast<int>(reviewers.size()), [&](HttpClient& client, int i) {
    const bool approve = i % 2 == 0;
    return client.Request(http::verb::post,
                          "/api/v1/reviews/" + review + (approve ? "/approve" : "/reject"),
                          approve ? std::string("{}") : json{{"reason", "no"}}.dump(),
                          reviewers[i]);
  });
}

inline std::map<unsigned, int> CountByStatus(const std::vector<Outcome>& outcomes) {
  std::map<unsigned, int> counts;
  for (const auto& o : outcomes) ++counts[o.status];
  return counts;
}

// Which store and gate a running docgate uses; every end-to-end suite runs once per backend.
struct Backend {
  const char* name;
  bool postgres;
  bool gate;
  bool redis = false;  // the Redis gate on DOCGATE_TEST_REDIS_URL instead of the in-process one
  bool amqp = false;   // events relayed to RabbitMQ on DOCGATE_TEST_AMQP_URL instead of in process
};
inline constexpr Backend kSqlite{"Sqlite", false, true};
inline constexpr Backend kPostgres{"Postgres", true, true};
inline constexpr Backend kPostgresWithoutGate{"PostgresWithoutGate", true, false};
inline constexpr Backend kPostgresWithRedis{"PostgresWithRedis", true, true, true};
inline constexpr Backend kPostgresWithBroker{"PostgresWithBroker", true, true, false, true};
inline constexpr Backend kSqliteWithBroker{"SqliteWithBroker", false, true, false, true};

// The author and the reviewer of the suites that drive the service directly (not over HTTP).
inline const Actor kAuthor{"alice", "", true, false, false};
inline const Actor kReviewer{"bob", "", false, true, false};

inline void PrintTo(const Backend& backend, std::ostream* os) { *os << backend.name; }

inline auto AllBackends() {
  return ::testing::Values(kSqlite, kPostgres, kPostgresWithoutGate, kPostgresWithRedis);
}
inline auto GatedBackends() { return ::testing::Values(kSqlite, kPostgres); }
inline std::string BackendName(const ::testing::TestParamInfo<Backend>& info) {
  return info.param.name;
}

// A real Application (HTTP on port 0, in-process events) on the backend of the test parameter:
// SQLite in a temporary directory, or a fresh PostgreSQL database on DOCGATE_TEST_PG_URL.
class ServerTest : public ::testing::TestWithParam<Backend> {
  // A parameterised test's name ("Name/Backend") as one path component.
  static std::string SafeName(std::string name) {
    std::replace(name.begin(), name.end(), '/', '_');
    return name;
  }

 protected:
  static void SetUpTestSuite() { spdlog::set_level(spdlog::level::warn); }

  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("docgate-e2e-" + std::to_string(::getpid()) + "-" +
            SafeName(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    if (GetParam().postgres) pg_ = std::make_unique<PgTestDatabase>();
    StartApp(MakeConfig());
  }

  void TearDown() override {
    app_.reset();
    pg_.reset();
    std::filesystem::remove_all(dir_);
  }

  // (Re)starts the application with `config`.
  void StartApp(const Config& config) {
    app_.reset();
    app_ = std::make_unique<Application>(config, &clock_);
    app_->AddConsumer(consumer_);
    app_->Start();
    port_ = app_->port();
  }

  Config MakeConfig() {
    Config config;
    config.http.address = "127.0.0.1";
    config.http.port = 0;
    config.http.io_threads = 2;
    config.http.worker_threads = 4;
    config.http.shutdown_grace = 10s;
    config.database.url = "sqlite://" + (dir_ / "data" / "docgate.db").string();
    config.gate.enabled = GetParam().gate;
    config.log.level = "warn";  // the request log as quiet as the rest (SetUpTestSuite)
    if (GetParam().postgres) {
      config.database.url = pg_->url();
      config.auth.jwt_secret = "e2e-secret";
    }
    if (GetParam().amqp) {
      const char* url = std::getenv("DOCGATE_TEST_AMQP_URL");
      if (url == nullptr || *url == '\0') {
        ADD_FAILURE() << "DOCGATE_TEST_AMQP_URL is not set; run through scripts/test.sh";
      } else {
        config.amqp.url = url;
      }
      // The node is shared by the tests running at once: an exchange and a consumers queue of
      // this test's own, so that no other test's worker takes its events.
      config.amqp.exchange = TestExchange();
      config.amqp.queue = TestExchange() + ".consumers";
    }
    if (GetParam().redis) {
      const char* url = std::getenv("DOCGATE_TEST_REDIS_URL");
      if (url == nullptr || *url == '\0') {
        ADD_FAILURE() << "DOCGATE_TEST_REDIS_URL is not set; run through scripts/test.sh";
      } else {
        config.redis.url = url;
      }
      // Keys of one test never meet another's (the server is shared, tests run in parallel).
      // (The per-process count keeps --gtest_repeat iterations apart as well.)
      static std::atomic<int> runs{0};
      config.gate.key_prefix =
          "e2e:" + dir_.filename().string() + ":" + std::to_string(++runs) + ":";
    }
    return config;
  }

  // The broker exchange of this test (MakeConfig), unique among the tests running at once; known
  // before SetUp, so that a test can bind to it before docgate starts.
  static std::string TestExchange() {
    return "docgate.e2e." + std::to_string(::getpid()) + "." +
           SafeName(::testing::UnitTest::GetInstance()->current_test_info()->name());
  }

  // Waits (bounded) until document `id`'s ingest_status is `status`; returns the document.
  json WaitForIngestStatus(const std::string& id, const std::string& status,
                           std::chrono::milliseconds limit = 15s) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    json doc;
    do {
      doc = Get("/api/v1/documents/" + id, Alice()).json();
      if (doc["ingest_status"] == status) return doc;
      std::this_thread::sleep_for(10ms);
    } while (std::chrono::steady_clock::now() < deadline);
    ADD_FAILURE() << "document " << id << " is still " << doc.dump() << ", not " << status;
    return doc;
  }

  std::string Token(const std::string& sub, std::vector<std::string> roles) {
    return SignHs256Token(app_->jwt_secret(),
                          TokenClaims{sub, std::move(roles), std::nullopt, clock_.Now() + 1h},
                          clock_.Now());
  }
  Headers As(const std::string& sub, std::vector<std::string> roles) {
    return {{"Authorization", "Bearer " + Token(sub, std::move(roles))}};
  }
  // A token signed with the server's secret whose claims SignHs256Token refuses to sign (a subject
  // too long, control characters): what a client with a leaked secret or another signer may send.
  Headers ForgedAs(const std::string& sub, const std::vector<std::string>& roles) {
    const auto exp = std::chrono::duration_cast<std::chrono::seconds>(
        (clock_.Now() + 1h).time_since_epoch());
    const json claims{{"sub", sub}, {"roles", roles}, {"exp", exp.count()}};
    return {{"Authorization",
             "Bearer " + Hs256SignedByHand(R"({"alg":"HS256","typ":"JWT"})", claims.dump(),
                                           app_->jwt_secret())}};
  }
  Headers Alice() { return As("alice", {"author"}); }
  Headers Carol() { return As("carol", {"author"}); }
  Headers Bob() { return As("bob", {"reviewer"}); }
  Headers Admin() { return As("root", {"admin"}); }

  HttpReply Call(http::verb verb, const std::string& target, const Headers& headers,
                 const std::string& body = {}) {
    HttpClient client(port_);
    return client.Request(verb, target, body, headers);
  }
  HttpReply Get(const std::string& target, const Headers& headers) {
    return Call(http::verb::get, target, headers);
  }
  HttpReply Post(const std::string& target, const Headers& headers, const std::string& body = {}) {
    return Call(http::verb::post, target, headers, body);
  }

  // Creates a document as `author`; returns its id.
  std::string Create(const Headers& author, const std::string& title = "Onboarding guide") {
    const auto reply = Post("/api/v1/documents", author,
                            json{{"title", title}, {"content", "# " + title}}.dump());
    EXPECT_EQ(reply.status(), 201u) << reply.body();
    return reply.json()["id"];
  }
  // Submits as alice; returns the review id.
  std::string Submit(const std::string& id, const Headers& author) {
    const auto reply = Post("/api/v1/documents/" + id + "/submit", author);
    EXPECT_EQ(reply.status(), 200u) << reply.body();
    return reply.json()["review"]["id"];
  }

  void ExpectProblem(const HttpReply& reply, unsigned status, const std::string& code) {
    EXPECT_EQ(reply.status(), status) << reply.body();
    EXPECT_EQ(reply.header(http::field::content_type), "application/problem+json");
    const json body = json::parse(reply.body(), nullptr, false);
    ASSERT_TRUE(body.is_object()) << reply.body();
    EXPECT_EQ(body["status"], status);
    EXPECT_EQ(body["code"], code) << reply.body();
    EXPECT_TRUE(body["type"].is_string());
    EXPECT_TRUE(body["title"].is_string());
    EXPECT_TRUE(body["detail"].is_string());
    if (code == "UNAUTHENTICATED") {
      EXPECT_EQ(reply.header(http::field::www_authenticate).rfind("Bearer", 0), 0u);
    }
  }

  // Waits (bounded) until the relay has handed `count` events to the consumer.
  std::vector<OutboxEvent> EventsWhenDelivered(std::size_t count) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (consumer_.events().size() < count && std::chrono::steady_clock::now() < deadline) {
      app_->internals().relay.Wake();
      std::this_thread::sleep_for(5ms);
    }
    return consumer_.events();
  }

  // Stops the application (the server, then event delivery), delivers whatever is still in the
  // outbox on this thread, and returns every event the consumer saw: the complete, final record.
  std::vector<OutboxEvent> StopAndCollectEvents() {
    app_->Stop();
    app_->internals().relay.RunOnce();
    return consumer_.events();
  }

  std::filesystem::path dir_;
  std::unique_ptr<PgTestDatabase> pg_;
  GatedClock clock_;
  RecordingConsumer consumer_;
  std::unique_ptr<Application> app_;
  std::uint16_t port_ = 0;
};

}  // namespace docgate::e2e
