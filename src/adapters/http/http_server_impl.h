#pragma once

// HttpServer's inside (http_server.h), shared by the two files that implement it: its connections
// as they wait, are accepted, evicted and screened (http_connections.cpp), and a request's way
// through a connection, a work lane and back (http_server.cpp). Not for other files.

// Boost 1.74's asio/awaitable.hpp uses std::exchange without including <utility>.
#include <utility>

#include <spdlog/spdlog.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include <algorithm>
#include <array>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <tuple>
#include <unordered_set>
#include <vector>

#include "adapters/http/http_server.h"
#include "adapters/http/work_lane.h"

namespace docgate {

// The names both implementation files use (this header is theirs alone).
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace http_server_internal {

using namespace std::chrono_literals;

constexpr auto kDrainTimeout = 2s;
constexpr std::size_t kMaxDrainBytes = 16 * 1024 * 1024;
constexpr auto kForcedStopWait = 5s;
constexpr char kRequestIdHeader[] = "X-Request-Id";
// A spare connection is there to be told "come back later" (or to answer a probe): it gets less
// time to send its request than a served one.
constexpr auto kSpareReadTimeout = 5s;
// What an idle kept-alive connection reads at once when its next request begins.
constexpr std::size_t kFirstRead = 4 * 1024;

struct Connection {
  explicit Connection(tcp::socket socket) : stream(std::move(socket)) {}
  beast::tcp_stream stream;
  bool spare = false;  // accepted past max_connections: one request, then closed
  // Guarded by HttpServer::Impl::mutex: waiting for a request (idle, or its header arriving) and
  // since when; chosen to make room for a new connection, so to close instead of serving.
  bool idle = false;
  std::chrono::steady_clock::time_point idle_since;
  bool evicted = false;
};

}  // namespace http_server_internal

struct HttpServer::Impl {
  using Connection = http_server_internal::Connection;
  Impl(HttpConfig c, RequestHandler h, RandomSource& r, std::vector<RequestObserver*> o,
       RequestScreen s)
      : config(std::move(c)),
        handler(std::move(h)),
        screen(std::move(s)),
        random(r),
        observers(std::move(o)),
        acceptor(asio::make_strand(ioc)),
        workers(config.worker_threads, config.queue_limit),
        operational(kOperationalWorkers, kOperationalQueueLimit) {}

  asio::awaitable<void> Accept();
  asio::awaitable<void> Serve(std::shared_ptr<Connection> conn);
  asio::awaitable<void> LingeringClose(Connection& conn);
  // Runs the handler on `lane` and resumes the caller on its own executor; a 503 (Shed) instead
  // when the lane's queue is full or the request waits in it past queue_timeout.
  asio::awaitable<HttpResponse> Dispatch(WorkLane& lane, const HttpRequest& request,
                                         RequestTrace& trace);
  bool IsOperational(const HttpRequestHeader& header) const;
  // The answer its header decides (a spare connection's 503, or the screen's), or nullopt.
  std::optional<HttpResponse> Screen(const Connection& conn, const HttpRequestHeader& header,
                                     RequestTrace& trace);
  HttpResponse Invoke(const HttpRequest& request, RequestTrace& trace);
  // The client's X-Request-Id when acceptable, else a new one. `fields` may be those of a header
  // the parser refused part way: a field is there only once its line was read whole.
  std::string RequestIdOf(const http::fields& fields);
  // Stamps the request id on `response` and shows the exchange to the observers.
  void Answered(HttpVerb verb, const RequestTrace& trace, HttpResponse& response,
                std::chrono::steady_clock::time_point started_at);
  void Forget(const std::shared_ptr<Connection>& conn);
  bool Stopping();
  // Marks `conn` waiting for a request; false when the server is stopping.
  bool StartWaiting(Connection& conn);
  // Marks `conn` no longer waiting; false when it was evicted meanwhile (to be closed).
  bool StopWaiting(Connection& conn);
  // Under `mutex`, at the connection cap: the connection waiting longest, marked evicted, or null.
  std::shared_ptr<Connection> EvictLongestWaiting();

  const HttpConfig config;
  const RequestHandler handler;
  const RequestScreen screen;
  RandomSource& random;
  const std::vector<RequestObserver*> observers;
  asio::io_context ioc;
  asio::executor_work_guard<asio::io_context::executor_type> work{ioc.get_executor()};
  tcp::acceptor acceptor;
  WorkLane workers;
  WorkLane operational;
  std::vector<std::thread> threads;

  std::mutex mutex;
  std::condition_variable changed;
  std::unordered_set<std::shared_ptr<Connection>> connections;
  bool accepting = false;
  bool started = false;
  bool stopping = false;
  std::uint16_t bound_port = 0;
  std::uint64_t refused_connections = 0;
  std::uint64_t evicted_connections = 0;
};

}  // namespace docgate
