// End-to-end: GET /metrics after a scripted workload shows exact counts per route template and
// status, gate outcome, relay delivery and backlog; the request log writes one JSON line per
// request with its id, route, status and caller, and never the token, a query or a body; every
// response echoes X-Request-Id.

#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>

#include <chrono>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "e2e/e2e_server.h"
#include "support/tcp_proxy.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
namespace http = boost::beast::http;

// Sample lines of a scrape: "name{labels}" -> value.
using Samples = std::map<std::string, double>;

Samples ParseExposition(const std::string& text) {
  Samples samples;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    const auto space = line.rfind(' ');
    samples[line.substr(0, space)] = std::stod(line.substr(space + 1));
  }
  return samples;
}

// The series of one metric, "name{labels}" -> value.
Samples SeriesOf(const Samples& samples, const std::string& name) {
  Samples series;
  for (const auto& [key, value] : samples) {
    if (key == name || key.rfind(name + "{", 0) == 0) series[key] = value;
  }
  return series;
}

// The samples of `samples` named in `wanted` (those missing are missing from the result too).
Samples Only(const Samples& samples, const Samples& wanted) {
  Samples found;
  for (const auto& [key, value] : wanted) {
    if (const auto it = samples.find(key); it != samples.end()) found.insert(*it);
  }
  return found;
}

class ObservabilityTest : public e2e::ServerTest {
 protected:
  Samples Scrape() {
    const auto reply = Get("/metrics", {});
    EXPECT_EQ(reply.status(), 200u);
    EXPECT_EQ(reply.header(http::field::content_type), "text/plain; version=0.0.4; charset=utf-8");
    return ParseExposition(reply.body());
  }

  // Waits (bounded) until the relay has counted `count` delivered events.
  bool RelayDelivered(std::uint64_t count) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (app_->internals().relay.counters().delivered.load() < count &&
           std::chrono::steady_clock::now() < deadline) {
      app_->internals().relay.Wake();
      std::this_thread::sleep_for(5ms);
    }
    return app_->internals().relay.counters().delivered.load() == count;
  }

  // Waits (bounded) until a scrape shows `value` for the unlabelled metric `name`.
  bool ScrapeUntil(const std::string& name, double value) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (Scrape()[name] != value) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(5ms);
    }
    return true;
  }

  // Restarts docgate with the request log at info, in JSON, and captures it.
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> CaptureRequestLog(Config config) {
    config.log.level = "info";
    config.log.format = "json";
    StartApp(config);
    auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(1000);
    app_->AddRequestLogSink(sink);
    return sink;
  }

  // The captured line of `request_id`, parsed; null when there is none or several.
  static json LineOf(const std::vector<std::string>& lines, const std::string& request_id) {
    json found;
    int count = 0;
    for (const auto& line : lines) {
      const json parsed = json::parse(line, nullptr, false);
      if (parsed.is_object() && parsed["request_id"] == request_id) {
        found = parsed;
        ++count;
      }
    }
    return count == 1 ? found : json();
  }
};

class MetricsTest : public ObservabilityTest {};
class RequestLogTest : public ObservabilityTest {};
class DegradedGateMetricsTest : public ObservabilityTest {};
class LoadSheddingTest : public ObservabilityTest {};

// 3 creates, 2 submits, 1 submit refused LOCK_BUSY, 1 approve, 1 reject of the decided review
// (409 INVALID_STATE), 1 request without a token (401), 1 unknown path (404), 1 wrong method (405),
// and the third create sent twice under one Idempotency-Key (the second answer is a replay).
TEST_P(MetricsTest, AScriptedWorkloadIsCountedExactly) {
  const auto alice = Alice();
  const auto bob = Bob();
  const std::string first = Create(alice);
  const std::string second = Create(alice);
  auto keyed = alice;
  keyed.emplace_back("Idempotency-Key", "metrics-workload-create-3");
  const std::string third = Create(keyed);
  const auto replayed = Post("/api/v1/documents", keyed,
                             json{{"title", "Onboarding guide"}, {"content", "# Onboarding guide"}}.dump());
  ASSERT_EQ(replayed.status(), 201u) << replayed.body();
  ASSERT_EQ(replayed.header("Idempotent-Replayed"), "true");
  ASSERT_EQ(replayed.json()["id"], third);
  const std::string review = Submit(first, alice);
  Submit(second, alice);
  const std::string held_key = DocumentService::SubmitLockKey(std::stoll(third));
  const Acquisition held = app_->internals().gate.Acquire(held_key, 8s);
  ASSERT_EQ(held.outcome, AcquireOutcome::kAcquired);
  ExpectProblem(Post("/api/v1/documents/" + third + "/submit", alice), 409, "LOCK_BUSY");
  ASSERT_EQ(app_->internals().gate.Release(held_key, held.token), ReleaseOutcome::kReleased);
  ASSERT_EQ(Post("/api/v1/reviews/" + review + "/approve", bob).status(), 200u);
  ExpectProblem(Post("/api/v1/reviews/" + review + "/reject", bob, R"({"reason": "too late"})"),
                409, "INVALID_STATE");
  ExpectProblem(Get("/api/v1/documents", {}), 401, "UNAUTHENTICATED");
  ExpectProblem(Get("/no/such/thing", {}), 404, "NOT_FOUND");
  EXPECT_EQ(Call(http::verb::delete_, "/healthz", {}).status(), 405u);
  // 2 submitted + 1 approved, delivered in process.
  ASSERT_TRUE(RelayDelivered(3));

  const Samples samples = Scrape();
  const Samples expected_requests = {
      {R"(docgate_http_requests_total{method="DELETE",route="/healthz",status="405"})", 1},
      {R"(docgate_http_requests_total{method="GET",route="/api/v1/documents",status="401"})", 1},
      {R"(docgate_http_requests_total{method="GET",route="unmatched",status="404"})", 1},
      {R"(docgate_http_requests_total{method="POST",route="/api/v1/documents",status="201"})", 4},
      {R"(docgate_http_requests_total{method="POST",route="/api/v1/documents/{id}/submit",status="200"})", 2},
      {R"(docgate_http_requests_total{method="POST",route="/api/v1/documents/{id}/submit",status="409"})", 1},
      {R"(docgate_http_requests_total{method="POST",route="/api/v1/reviews/{id}/approve",status="200"})", 1},
      {R"(docgate_http_requests_total{method="POST",route="/api/v1/reviews/{id}/reject",status="409"})", 1},
  };
  EXPECT_EQ(SeriesOf(samples, "docgate_http_requests_total"), expected_requests);
  const std::string creates = R"({method="POST",route="/api/v1/documents")";
  EXPECT_EQ(samples.at("docgate_http_request_duration_seconds_count" + creates + "}"), 4);
  EXPECT_EQ(samples.at("docgate_http_request_duration_seconds_bucket" + creates + R"(,le="+Inf"})"), 4);
  EXPECT_EQ(samples.at(R"(docgate_http_request_duration_seconds_count{method="POST",route="/api/v1/documents/{id}/submit"})"), 3);

  const Samples expected_gate = {
      {R"(docgate_gate_acquire_total{outcome="acquired"})", 4},  // 2 submits, approve, reject
      {R"(docgate_gate_acquire_total{outcome="backend_error"})", 0},
      {R"(docgate_gate_acquire_total{outcome="busy"})", 1},
  };
  EXPECT_EQ(SeriesOf(samples, "docgate_gate_acquire_total"), expected_gate);
  const Samples expected_state = {
      {"docgate_gate_acquire_duration_seconds_count", 5},
      {"docgate_gate_degraded_passthrough_total", 0},
      {R"(docgate_gate_release_total{outcome="released"})", 4},
      {R"(docgate_gate_release_total{outcome="not_owner"})", 0},
      {"docgate_gate_lost_leases_total", 0},
      {"docgate_relay_events_published_total", 3},
      {"docgate_relay_events_returned_total", 0},
      {"docgate_relay_events_nacked_total", 0},
      {"docgate_relay_events_failed_total", 0},
      {"docgate_relay_errors_total", 0},
      {"docgate_relay_claims_lost_total", 0},
      {"docgate_outbox_backlog_events", 0},
      {"docgate_outbox_oldest_pending_age_seconds", 0},
      {"docgate_idempotent_replays_total", 1},
      // 3 events x 2 consumers; the submissions are no-ops for both, but still processed.
      {"docgate_consumer_events_processed_total", 6},
      {"docgate_consumer_events_skipped_total", 0},
      {"docgate_consumer_events_failed_total", 0},
      {"docgate_consumer_events_parked_total", 0},
      {"docgate_reconciler_requeued_total", 0},
      {"docgate_db_pool_connections_max", 4},
      {"docgate_db_pool_waiting", 0},
  };
  EXPECT_EQ(Only(samples, expected_state), expected_state);
  EXPECT_GE(samples.at("docgate_db_pool_connections_in_use"), 0);
  EXPECT_LE(samples.at("docgate_db_pool_connections_in_use"), 4);

  // The first scrape is counted like any request.
  EXPECT_EQ(Scrape().at(R"(docgate_http_requests_total{method="GET",route="/metrics",status="200"})"), 1);
}

TEST_P(MetricsTest, TheBacklogShowsPendingEventsAndTheAgeOfTheOldest) {
  app_->Stop();  // the relay too: what is written now stays pending
  const Actor alice{"alice", "", true, false, false};
  const auto doc = app_->internals().service.Create(alice, "Onboarding guide", "# Onboarding");
  ASSERT_TRUE(doc);
  ASSERT_TRUE(app_->internals().service.Submit(alice, doc->id));
  clock_.Advance(90s);
  const Samples samples = ParseExposition(app_->internals().metrics.Expose());
  EXPECT_EQ(samples.at("docgate_outbox_backlog_events"), 1);
  EXPECT_EQ(samples.at("docgate_outbox_oldest_pending_age_seconds"), 90);
}

TEST_P(RequestLogTest, OneJsonLinePerRequestWithItsIdRouteStatusAndCallerAndNoSecret) {
  const auto sink = CaptureRequestLog(MakeConfig());
  const std::string token = Token("alice", {"author"});
  const e2e::Headers alice = {{"Authorization", "Bearer " + token}};
  const auto created =
      Post("/api/v1/documents", alice,
           json{{"title", "title-marker-5e1"}, {"content", "body-marker-8c1f"}}.dump());
  ASSERT_EQ(created.status(), 201u);
  const std::string id = created.json()["id"];

  e2e::Headers with_id = alice;
  with_id.emplace_back("X-Request-Id", "e2e-log.1_A");
  const auto reply = Get("/api/v1/documents/" + id, with_id);
  ASSERT_EQ(reply.status(), 200u);
  EXPECT_EQ(reply.header("X-Request-Id"), "e2e-log.1_A");
  EXPECT_EQ(Get("/api/v1/documents?author_id=query-marker-77", alice).status(), 200u);
  const auto anonymous = Get("/healthz", {});
  const std::string generated = anonymous.header("X-Request-Id");
  EXPECT_TRUE(std::regex_match(generated, std::regex("[0-9a-f]{32}"))) << generated;
  const auto refused_id = Get("/healthz", {{"X-Request-Id", "not acceptable!"}});
  EXPECT_TRUE(std::regex_match(refused_id.header("X-Request-Id"), std::regex("[0-9a-f]{32}")));

  const std::vector<std::string> lines = sink->last_formatted();
  ASSERT_EQ(lines.size(), 5u);
  const json line = LineOf(lines, "e2e-log.1_A");
  ASSERT_TRUE(line.is_object()) << ::testing::PrintToString(lines);
  std::vector<std::string> keys;
  for (const auto& item : line.items()) keys.push_back(item.key());
  // nlohmann::json sorts keys; the raw line keeps them in the documented order.
  EXPECT_EQ(keys, (std::vector<std::string>{"caller", "duration_ms", "level", "method",
                                            "request_id", "route", "status", "time"}));
  const std::string raw = *std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find("e2e-log.1_A") != std::string::npos;
  });
  EXPECT_TRUE(std::regex_match(
      raw, std::regex(R"re(\{"time":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z","level":"info","request_id":"e2e-log\.1_A","method":"GET","route":"/api/v1/documents/\{id\}","status":200,"duration_ms":[0-9.e-]+,"caller":"alice"\}\r?\n?)re")))
      << raw;
  EXPECT_GE(line["duration_ms"].get<double>(), 0.0);

  const json health = LineOf(lines, generated);
  ASSERT_TRUE(health.is_object()) << ::testing::PrintToString(lines);
  EXPECT_EQ(health["route"], "/healthz");
  EXPECT_EQ(health["status"], 200);
  EXPECT_TRUE(health["caller"].is_null());

  for (const auto& text : lines) {
    EXPECT_EQ(text.find(token), std::string::npos) << text;
    EXPECT_EQ(text.find(token.substr(token.rfind('.') + 1)), std::string::npos) << text;
    EXPECT_EQ(text.find("Bearer"), std::string::npos) << text;
    EXPECT_EQ(text.find(app_->jwt_secret()), std::string::npos) << text;
    EXPECT_EQ(text.find("title-marker-5e1"), std::string::npos) << text;
    EXPECT_EQ(text.find("body-marker-8c1f"), std::string::npos) << text;
    EXPECT_EQ(text.find("query-marker-77"), std::string::npos) << text;
    EXPECT_EQ(text.find("/api/v1/documents/" + id), std::string::npos) << text;
  }
}

TEST_P(RequestLogTest, EveryAnswerEchoesTheRequestIdAndIsLoggedOnceErrorsIncluded) {
  Config config = MakeConfig();
  config.http.body_limit = 1024;
  const auto sink = CaptureRequestLog(config);
  const auto call = [&](http::verb verb, const std::string& target, const std::string& id,
                        const e2e::Headers& headers, const std::string& body = {}) {
    e2e::Headers all = headers;
    all.emplace_back("X-Request-Id", id);
    const auto reply = Call(verb, target, all, body);
    EXPECT_EQ(reply.header("X-Request-Id"), id) << target;
    return reply.status();
  };
  EXPECT_EQ(call(http::verb::get, "/api/v1/documents", "no-token", {}), 401u);
  EXPECT_EQ(call(http::verb::get, "/nowhere", "no-route", {}), 404u);
  EXPECT_EQ(call(http::verb::put, "/readyz", "wrong-method", {}), 405u);
  EXPECT_EQ(call(http::verb::post, "/api/v1/documents", "too-big", Alice(), std::string(4096, 'x')),
            413u);
  EXPECT_EQ(call(http::verb::post, "/api/v1/documents", "bad-json", Alice(), "{"), 400u);
  EXPECT_EQ(call(http::verb::get, "/api/v1/reviews", "forbidden", Alice()), 403u);

  const auto lines = sink->last_formatted();
  ASSERT_EQ(lines.size(), 6u) << ::testing::PrintToString(lines);
  const std::map<std::string, std::tuple<std::string, std::string, int, json>> expected = {
      {"no-token", {"GET", "/api/v1/documents", 401, nullptr}},
      {"no-route", {"GET", "unmatched", 404, nullptr}},
      {"wrong-method", {"PUT", "/readyz", 405, nullptr}},
      {"too-big", {"POST", "unmatched", 413, nullptr}},
      {"bad-json", {"POST", "/api/v1/documents", 400, "alice"}},
      {"forbidden", {"GET", "/api/v1/reviews", 403, "alice"}},
  };
  for (const auto& [id, fields] : expected) {
    const json line = LineOf(lines, id);
    ASSERT_TRUE(line.is_object()) << id << ": " << ::testing::PrintToString(lines);
    EXPECT_EQ(line["method"], std::get<0>(fields)) << id;
    EXPECT_EQ(line["route"], std::get<1>(fields)) << id;
    EXPECT_EQ(line["status"], std::get<2>(fields)) << id;
    EXPECT_EQ(line["caller"], std::get<3>(fields)) << id;
  }
  const Samples samples = Scrape();
  EXPECT_EQ(samples.at(R"(docgate_http_requests_total{method="POST",route="unmatched",status="413"})"), 1);
}

TEST_P(RequestLogTest, TheConfiguredLevelFiltersTheRequestLog) {
  Config config = MakeConfig();
  config.log.level = "warn";
  StartApp(config);
  const auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(10);
  app_->AddRequestLogSink(sink);
  EXPECT_EQ(Get("/healthz", {}).status(), 200u);
  EXPECT_EQ(Get("/nowhere", {}).status(), 404u);
  EXPECT_TRUE(sink->last_formatted().empty()) << ::testing::PrintToString(sink->last_formatted());
}

// With Redis configured but gone, every acquisition is a backend error and the request goes on
// under the row locks: counted as degraded pass-through, and /readyz says degraded (still 200).
TEST_P(DegradedGateMetricsTest, ARedisOutageIsCountedAsBackendErrorsAndDegradedPassThrough) {
  const char* redis = std::getenv("DOCGATE_TEST_REDIS_URL");
  ASSERT_TRUE(redis != nullptr && *redis != '\0') << "DOCGATE_TEST_REDIS_URL is not set";
  TcpProxy proxy(PortOfUrl(redis));
  Config config = MakeConfig();
  config.redis.url = "redis://127.0.0.1:" + std::to_string(proxy.port());
  config.redis.breaker_initial = 50ms;
  config.redis.breaker_max = 200ms;
  StartApp(config);
  const std::string first = Create(Alice());
  const std::string second = Create(Alice());
  Submit(first, Alice());  // through Redis

  proxy.Stop();
  const std::string review = Submit(second, Alice());  // 200 under the row locks alone
  ASSERT_EQ(Post("/api/v1/reviews/" + review + "/approve", Bob()).status(), 200u);
  const auto ready = Get("/readyz", {});
  EXPECT_EQ(ready.status(), 200u);
  EXPECT_EQ(ready.json(), json({{"status", "degraded"},
                                {"checks",
                                 {{"database", "ok"},
                                  {"lock", "degraded"},
                                  {"broker", "disabled"},
                                  {"embeddings", "off"},
                                  {"identity", "disabled"}}}}));

  const Samples samples = Scrape();
  const Samples expected_gate = {
      {R"(docgate_gate_acquire_total{outcome="acquired"})", 1},
      {R"(docgate_gate_acquire_total{outcome="backend_error"})", 2},
      {R"(docgate_gate_acquire_total{outcome="busy"})", 0},
  };
  EXPECT_EQ(SeriesOf(samples, "docgate_gate_acquire_total"), expected_gate);
  const Samples expected_state = {
      {"docgate_gate_degraded_passthrough_total", 2},
      {R"(docgate_gate_release_total{outcome="released"})", 1},
      {"docgate_gate_lost_leases_total", 0},
      {R"(docgate_http_requests_total{method="POST",route="/api/v1/documents/{id}/submit",status="200"})", 2},
  };
  EXPECT_EQ(Only(samples, expected_state), expected_state);
}

// One worker, a queue of one: a create held on SQLite's write lock, a second one queued behind it,
// and the third is shed, while the probes (their own lane) and /metrics still answer.
TEST_P(LoadSheddingTest, ASaturatedApiSheds503WhileTheProbesAnswerAndTheSheddingIsCounted) {
  Config config = MakeConfig();
  config.http.worker_threads = 1;
  config.http.queue_limit = 1;
  config.http.queue_timeout = 10min;
  config.database.busy_timeout = 10min;
  StartApp(config);
  const e2e::Headers alice = Alice();
  const std::string body = R"({"title": "t", "content": "c"})";
  std::vector<e2e::HttpReply> held(2);
  std::vector<std::jthread> clients;  // joined after the writer below lets them finish
  {
    auto writer = app_->internals().stores.documents->Begin();  // holds SQLite's single writer slot
    // The first create runs (and waits for the write lock), then the second one waits for it.
    const char* gauges[] = {"docgate_http_busy_workers", "docgate_http_queued_requests"};
    for (std::size_t i = 0; i < held.size(); ++i) {
      clients.emplace_back([&, i] { held[i] = Post("/api/v1/documents", alice, body); });
      ASSERT_TRUE(ScrapeUntil(gauges[i], 1)) << gauges[i];
    }

    const auto shed = Post("/api/v1/documents", alice, body);
    ExpectProblem(shed, 503, "UNAVAILABLE");
    EXPECT_EQ(shed.header(http::field::retry_after), "1");
    EXPECT_EQ(Get("/healthz", {}).status(), 200u);
    EXPECT_EQ(Get("/readyz", {}).status(), 200u);
    const Samples samples = Scrape();
    EXPECT_EQ(SeriesOf(samples, "docgate_http_requests_shed_total").size(), 3u);
    for (const auto& [reason, count] : std::map<std::string, double>{
             {"connections", 0}, {"queue_full", 1}, {"queue_timeout", 0}}) {
      EXPECT_EQ(samples.at("docgate_http_requests_shed_total{reason=\"" + reason + "\"}"), count);
    }
    EXPECT_EQ(samples.at("docgate_http_connections_refused_total"), 0);
    EXPECT_GE(samples.at("docgate_http_connections"), 3);  // the two held and the scrape's
  }
  for (auto& client : clients) client.join();
  for (const auto& reply : held) EXPECT_EQ(reply.status(), 201u) << reply.body();
}

INSTANTIATE_TEST_SUITE_P(Backends, MetricsTest, e2e::GatedBackends(), e2e::BackendName);
INSTANTIATE_TEST_SUITE_P(Backends, RequestLogTest, ::testing::Values(e2e::kSqlite),
                         e2e::BackendName);
INSTANTIATE_TEST_SUITE_P(Backends, LoadSheddingTest, ::testing::Values(e2e::kSqlite),
                         e2e::BackendName);
INSTANTIATE_TEST_SUITE_P(Backends, DegradedGateMetricsTest,
                         ::testing::Values(e2e::kPostgresWithRedis), e2e::BackendName);

}  // namespace
}  // namespace docgate
