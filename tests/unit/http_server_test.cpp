// The HTTP server's bounds on what a client can hold: the read buffer, the open connections, the
// worker queue and the wait in it, against a real server on port 0 with a handler the test holds.

#include "adapters/http/http_server.h"

#include <gtest/gtest.h>

#include <atomic>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "e2e/http_client.h"
#include "fakes/fake_random.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;
using e2e::HttpClient;
using e2e::HttpReply;
namespace http = boost::beast::http;

constexpr auto kPatience = 10s;

// Holds every request to /block until Release; answers anything else at once with 200.
class HeldHandler {
 public:
  HttpResponse Handle(const HttpRequest& request) {
    if (request.target() == "/block") {
      std::unique_lock lock(mutex_);
      ++held_;
      changed_.notify_all();
      changed_.wait(lock, [this] { return released_; });
    }
    HttpResponse response{HttpStatus::ok, 11};
    response.body() = std::string(request.target());
    return response;
  }

  bool WaitUntilHolding(int requests) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, kPatience, [&] { return held_ >= requests; });
  }

  void Release() {
    std::lock_guard lock(mutex_);
    released_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int held_ = 0;
  bool released_ = false;
};

// Records the shed reason of every answered request.
class ShedRecorder final : public RequestObserver {
 public:
  void OnRequest(const CompletedRequest& request) noexcept override {
    std::lock_guard lock(mutex_);
    if (!request.trace.shed.empty()) reasons_.emplace_back(request.trace.shed);
  }
  std::vector<std::string> reasons() {
    std::lock_guard lock(mutex_);
    return reasons_;
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> reasons_;
};

class HttpServerLimitsTest : public ::testing::Test {
 protected:
  void TearDown() override {
    held_.Release();
    for (auto& thread : threads_) thread.join();
    server_.reset();
  }

  void Start(HttpConfig config, RequestScreen screen = {}) {
    config.address = "127.0.0.1";
    config.port = 0;
    server_ = std::make_unique<HttpServer>(
        config, [this](const HttpRequest& request, RequestTrace&) { return held_.Handle(request); },
        random_, std::vector<RequestObserver*>{&shed_}, std::move(screen));
    server_->Start();
  }

  // Sends GET `target` on a connection of its own from another thread; its reply lands in `out`.
  void GetInBackground(const std::string& target, HttpReply& out) {
    threads_.emplace_back([this, target, &out] {
      HttpClient client(server_->port(), 60s);
      out = client.Request(http::verb::get, target);
    });
  }

  // Starts a server of one worker and has it hold a request, whose reply lands in `running`.
  void StartWithItsOneWorkerHeld(std::size_t queue_limit, std::chrono::milliseconds queue_timeout,
                                 HttpReply& running) {
    HttpConfig config;
    config.worker_threads = 1;
    config.queue_limit = queue_limit;
    config.queue_timeout = queue_timeout;
    Start(config);
    GetInBackground("/block", running);
    ASSERT_TRUE(held_.WaitUntilHolding(1));
  }

  bool WaitUntil(const std::function<bool(const HttpServerStats&)>& condition) {
    const auto deadline = std::chrono::steady_clock::now() + kPatience;
    while (!condition(server_->stats())) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::yield();
    }
    return true;
  }

  static void ExpectShed(const HttpReply& reply) {
    EXPECT_EQ(reply.status(), 503u);
    EXPECT_EQ(reply.header(http::field::content_type), "application/problem+json");
    EXPECT_EQ(reply.json()["code"], "UNAVAILABLE");
    EXPECT_EQ(reply.header(http::field::retry_after), std::to_string(kShedRetryAfterSeconds));
  }

  HeldHandler held_;
  ShedRecorder shed_;
  FakeRandom random_;
  std::unique_ptr<HttpServer> server_;
  std::vector<std::thread> threads_;
};

TEST_F(HttpServerLimitsTest, AChunkSizeLineThatNeverEndsIsRefusedOnceItOutgrowsTheBuffer) {
  HttpConfig config;
  Start(config);
  const std::size_t cap = config.header_limit + kReadAhead;
  HttpClient client(server_->port());
  const HttpReply reply =
      client.Raw("POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1" +
                 std::string(4 * cap, '0'));
  EXPECT_EQ(reply.status(), 400u);
  EXPECT_EQ(reply.json()["code"], "VALIDATION");
  EXPECT_TRUE(client.WaitForClose());
  EXPECT_EQ(HttpClient(server_->port()).Request(http::verb::get, "/x").status(), 200u);
}

TEST_F(HttpServerLimitsTest, ConnectionsPastTheCapAre503AndClosedWhileServedOnesWork) {
  HttpConfig config;
  config.max_connections = 2;
  Start(config);
  HttpClient first(server_->port());
  auto second = std::make_unique<HttpClient>(server_->port());
  ASSERT_EQ(first.Request(http::verb::get, "/x").status(), 200u);
  ASSERT_EQ(second->Request(http::verb::get, "/x").status(), 200u);

  HttpClient spare(server_->port());
  ExpectShed(spare.Request(http::verb::get, "/x"));
  EXPECT_TRUE(spare.WaitForClose());
  HttpClient probe(server_->port());
  EXPECT_EQ(probe.Request(http::verb::get, "/healthz").status(), 200u);
  EXPECT_TRUE(probe.WaitForClose());
  EXPECT_EQ(first.Request(http::verb::get, "/x").status(), 200u);
  EXPECT_EQ(shed_.reasons(), std::vector<std::string>{"connections"});

  // A closed connection makes room for a served one again.
  second.reset();
  ASSERT_TRUE(WaitUntil([](const HttpServerStats& stats) { return stats.connections == 1; }));
  HttpClient third(server_->port());
  EXPECT_EQ(third.Request(http::verb::get, "/x").status(), 200u);
  EXPECT_EQ(third.Request(http::verb::get, "/x").status(), 200u);  // kept alive
}

TEST_F(HttpServerLimitsTest, IdleSocketsAtTheCapGiveWayToAProbe) {
  HttpConfig config;
  config.max_connections = 4;
  Start(config);
  constexpr std::size_t kAll = 4 + kSpareConnections;
  std::vector<std::unique_ptr<HttpClient>> idle;
  for (std::size_t i = 0; i < kAll; ++i)
    idle.push_back(std::make_unique<HttpClient>(server_->port()));
  ASSERT_TRUE(WaitUntil([](const HttpServerStats& stats) {
    return stats.connections == kAll && stats.waiting == kAll;
  }));

  HttpClient probe(server_->port());
  EXPECT_EQ(probe.Request(http::verb::get, "/healthz").status(), 200u);
  EXPECT_EQ(server_->stats().evicted_connections, 1u);
  EXPECT_EQ(server_->stats().refused_connections, 0u);
  // One idle socket made room, and the probe, a spare connection, closed after its answer.
  EXPECT_TRUE(
      WaitUntil([](const HttpServerStats& stats) { return stats.connections == kAll - 1; }));
}

TEST_F(HttpServerLimitsTest, AtTheCapWithNoConnectionWaitingANewOneIsClosedAtOnce) {
  HttpConfig config;
  config.max_connections = 1;
  config.operational_paths = {"/block"};  // so that the spare connections hold requests too
  // Every connection's request header in: none of them waits for a request any more. (Counting
  // connections with none waiting is not enough: an accepted connection is not waiting yet
  // until its first read begins, and the new one would evict it then.)
  std::atomic<std::size_t> headers_in{0};
  Start(config, [&headers_in](const HttpRequestHeader&, RequestTrace&) {
    ++headers_in;
    return std::optional<HttpResponse>();
  });
  constexpr std::size_t kAll = 1 + kSpareConnections;
  std::vector<HttpReply> replies(kAll);
  for (std::size_t i = 0; i < kAll; ++i) GetInBackground("/block", replies[i]);
  ASSERT_TRUE(WaitUntil([&headers_in](const HttpServerStats& stats) {
    return headers_in == kAll && stats.connections == kAll && stats.waiting == 0;
  }));

  HttpClient refused(server_->port());
  EXPECT_TRUE(refused.WaitForClose());
  EXPECT_EQ(server_->stats().refused_connections, 1u);
  EXPECT_EQ(server_->stats().evicted_connections, 0u);
  held_.Release();
  for (auto& thread : threads_) thread.join();
  threads_.clear();
  for (const HttpReply& reply : replies) EXPECT_EQ(reply.status(), 200u);
}

TEST_F(HttpServerLimitsTest, AHeaderThatTakesLongerThanTheHeaderTimeoutClosesTheConnection) {
  HttpConfig config;
  config.header_timeout = 100ms;
  config.read_timeout = 10min;
  Start(config);
  HttpClient slow(server_->port());
  slow.Send("GET /x HTTP/1.1\r\nHost: x\r\n");
  EXPECT_TRUE(slow.WaitForClose());
  HttpClient silent(server_->port());
  EXPECT_TRUE(silent.WaitForClose());
}

// What the screen decides is answered from the header: the body is never read (the answer comes
// while the client still holds it back), and the connection then closes; a screened request
// without a body leaves the connection open.
TEST_F(HttpServerLimitsTest, TheScreenAnswersFromTheHeaderWithoutReadingTheBody) {
  HttpConfig config;
  Start(config, [](const HttpRequestHeader& header, RequestTrace&) -> std::optional<HttpResponse> {
    if (header.target() != "/private" || header[http::field::authorization] == "ok") {
      return std::nullopt;
    }
    HttpResponse refused{HttpStatus::unauthorized, 11};
    refused.body() = "no";
    return refused;
  });
  const std::string upload = "POST /private HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n";
  HttpClient client(server_->port());
  EXPECT_EQ(client.Raw(upload + "\r\n").status(), 401u);
  EXPECT_TRUE(client.WaitForClose());
  HttpClient expecting(server_->port());
  EXPECT_EQ(expecting.Raw(upload + "Expect: 100-continue\r\n\r\n").status(), 401u)
      << "refused instead of 100 Continue";

  HttpClient kept(server_->port());
  EXPECT_EQ(kept.Request(http::verb::get, "/private").status(), 401u);
  EXPECT_EQ(kept.Request(http::verb::get, "/private", {}, {{"Authorization", "ok"}}).status(),
            200u);
  EXPECT_EQ(kept.Request(http::verb::get, "/x").status(), 200u);
}

TEST_F(HttpServerLimitsTest, WithEveryWorkerBusyAndTheQueueFullTheApiSheds503AndProbesAnswer) {
  HttpReply running;
  ASSERT_NO_FATAL_FAILURE(StartWithItsOneWorkerHeld(1, 10min, running));
  HttpReply queued;
  GetInBackground("/block", queued);
  ASSERT_TRUE(WaitUntil([](const HttpServerStats& stats) { return stats.queued == 1; }));

  HttpClient client(server_->port());
  ExpectShed(client.Request(http::verb::get, "/api/v1/documents"));
  // The server's own answers speak the request's language, as the API's do.
  const HttpReply chinese =
      client.Request(http::verb::get, "/api/v1/documents", {}, {{"Accept-Language", "zh-CN"}});
  ExpectShed(chinese);
  EXPECT_EQ(chinese.header(http::field::content_language), "zh-CN");
  EXPECT_NE(chinese.body().find("所有工作线程都在忙"), std::string::npos) << chinese.body();
  for (const char* path : {"/healthz", "/readyz", "/metrics"}) {
    EXPECT_EQ(client.Request(http::verb::get, path).status(), 200u) << path;
  }
  EXPECT_EQ(shed_.reasons(), (std::vector<std::string>{"queue_full", "queue_full"}));

  held_.Release();
  for (auto& thread : threads_) thread.join();
  threads_.clear();
  EXPECT_EQ(running.status(), 200u);
  EXPECT_EQ(queued.status(), 200u);
  EXPECT_EQ(client.Request(http::verb::get, "/api/v1/documents").status(), 200u);
}

TEST_F(HttpServerLimitsTest, ARequestThatWaitedPastTheQueueTimeoutIs503) {
  HttpReply running;
  ASSERT_NO_FATAL_FAILURE(StartWithItsOneWorkerHeld(8, 50ms, running));

  HttpClient client(server_->port());
  ExpectShed(client.Request(http::verb::get, "/x"));
  EXPECT_EQ(shed_.reasons(), std::vector<std::string>{"queue_timeout"});
  EXPECT_EQ(server_->stats().queued, 0u);  // withdrawn, never to run
  EXPECT_EQ(client.Request(http::verb::get, "/healthz").status(), 200u);

  held_.Release();
  threads_.front().join();
  threads_.clear();
  EXPECT_EQ(running.status(), 200u);
  EXPECT_EQ(client.Request(http::verb::get, "/x").status(), 200u);
}

}  // namespace
}  // namespace docgate
