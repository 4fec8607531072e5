#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/http/http_message.h"
#include "adapters/http/request_trace.h"
#include "app/ports/random_source.h"

namespace docgate {

struct HttpConfig {
  std::string address = "127.0.0.1";  // an IPv4 or IPv6 literal
  std::uint16_t port = 8080;          // 0 picks a free port (see HttpServer::port)
  int io_threads = 2;                 // socket reads and writes only
  int worker_threads = 4;             // request handlers (blocking database work)
  // How long a connection may take to deliver a request's body (and stay idle between keep-alive
  // requests), and to accept a response.
  std::chrono::milliseconds read_timeout{30000};
  // How long a request's header may take to arrive: from the connection's accept, or from the
  // first byte of a later request on a kept-alive connection.
  std::chrono::milliseconds header_timeout{10000};
  bool keep_alive = true;
  std::size_t body_limit = 1024 * 1024;  // larger bodies get 413 PAYLOAD_TOO_LARGE
  // POST to upload_path may send up to upload_body_limit instead (0: no such path): the import's
  // files (DOCGATE_IMPORT_MAX_BYTES and the multipart framing around it).
  std::string upload_path = {};
  std::size_t upload_body_limit = 0;
  std::size_t header_limit = 16 * 1024;  // larger request headers get 400 VALIDATION
  // Connections served at once. Beyond them, kSpareConnections more are accepted to answer one
  // request each and close: an operational path is served, anything else gets 503 UNAVAILABLE.
  // Past those, a new connection takes the place of the one that has waited longest for a
  // request (idle, or its header still arriving), which is closed; with none waiting, the new
  // one is closed as soon as it is accepted. Idle sockets cannot keep a probe out.
  std::size_t max_connections = 1024;
  // Requests waiting for a worker; one that finds the queue full is answered 503 UNAVAILABLE.
  std::size_t queue_limit = 128;
  // A request still waiting for a worker after this long is answered 503 UNAVAILABLE.
  std::chrono::milliseconds queue_timeout{5000};
  // GET and HEAD on these paths run on a lane of their own (kOperationalWorkers threads, queue
  // of kOperationalQueueLimit), so they answer while the workers and their queue are saturated.
  std::vector<std::string> operational_paths = {"/healthz", "/readyz", "/metrics"};
  // Stop() waits this long for in-flight requests before closing their connections.
  std::chrono::milliseconds shutdown_grace{30000};
};

// Why `config` cannot be used, in one line naming the DOCGATE_* variable (DOCGATE_HTTP_*,
// DOCGATE_SHUTDOWN_GRACE_MS), or nullopt when it can: an IP literal address, 1..256 I/O threads,
// 1..1024 workers, positive read and queue timeouts, a body limit up to 1 GiB, 1..1000000
// connections and queued requests, a shutdown grace of 0 or more. (Defined in http_config.cpp.)
std::optional<std::string> ValidateHttpConfig(const HttpConfig& config);

// True for an IPv4 or IPv6 address literal ("127.0.0.1", "::1"; no brackets, no name).
bool IsIpLiteral(const std::string& host);

// Connections accepted past max_connections to answer 503 (or an operational request) and close.
inline constexpr std::size_t kSpareConnections = 32;
inline constexpr int kOperationalWorkers = 2;
inline constexpr std::size_t kOperationalQueueLimit = 32;
// A connection's read buffer holds at most this much more than header_limit: a chunk-size line,
// chunk extension or trailer longer than that is refused (400 VALIDATION), not buffered on.
inline constexpr std::size_t kReadAhead = 64 * 1024;
// The Retry-After of every 503 the server sheds load with, and its reasons (RequestTrace::shed).
inline constexpr int kShedRetryAfterSeconds = 1;
inline constexpr std::string_view kShedConnections = "connections";
inline constexpr std::string_view kShedQueueFull = "queue_full";
inline constexpr std::string_view kShedQueueTimeout = "queue_timeout";

// Every thread of the server has a name that starts with this.
inline constexpr std::string_view kHttpThreadPrefix = "http-";

// What the server holds right now, for the metrics. Refused connections only grow.
struct HttpServerStats {
  std::size_t connections = 0;   // open, spare ones included
  std::size_t waiting = 0;       // of those, waiting for a request (idle, or its header arriving)
  std::size_t busy_workers = 0;  // of worker_threads, those running a request
  std::size_t queued = 0;        // requests waiting for one of them (operational lane excluded)
  std::uint64_t refused_connections = 0;  // closed at accept: beyond the spare connections
  std::uint64_t evicted_connections = 0;  // closed waiting for a request, to make room
};

// Called on a worker thread for each complete request; returns the response to send, and fills
// in the trace's route and caller. Must be thread-safe and should not throw (a thrown
// std::exception is logged and answered with 500).
using RequestHandler = std::function<HttpResponse(const HttpRequest&, RequestTrace&)>;

// Called on an I/O thread as soon as a request's header is in, before its body is read (and
// before a `100 Continue`): the answer to a request its header decides (an unauthenticated one,
// say), or nullopt to read the body and run the handler. The body of a request answered here is
// never read: the connection is closed after the answer when one was coming. Must be quick, must
// not block, and should not throw (a thrown std::exception is logged and answered with 500).
using RequestScreen =
    std::function<std::optional<HttpResponse>(const HttpRequestHeader&, RequestTrace&)>;

// An HTTP/1.1 server (Boost.Beast/Asio): `io_threads` threads run the sockets, and each request's
// handler runs on a bounded pool of `worker_threads`, so that blocking handlers never stall I/O.
// The threads are named "http-io" and "http-worker" (kHttpThreadPrefix, then io / worker).
// Keep-alive, per-connection header and read timeouts, a body limit (413) and a header limit (400)
// are enforced here; the response's Connection and Content-Length are set here.
//
// What a client can hold is bounded: each connection's read buffer (header_limit + kReadAhead),
// the open connections (max_connections + kSpareConnections), the requests waiting for a worker
// (queue_limit) and how long they wait (queue_timeout). Past a bound the server sheds load with
// 503 UNAVAILABLE, `Retry-After: kShedRetryAfterSeconds`, and RequestTrace::shed set to
// its kShed* reason; it never queues without bound.
//
// Every request gets an id (RequestTrace::request_id: the client's acceptable X-Request-Id, else
// `random`'s Token128), echoed in the response's X-Request-Id, errors and the 413/400 answered
// before routing included. Every answered request is shown once to each of `observers` (the
// request log, the metrics) just before its response is written; a connection that closes
// without an answer is not.
class HttpServer {
 public:
  // `random` and the observers must outlive the server; `screen` may be empty.
  HttpServer(HttpConfig config, RequestHandler handler, RandomSource& random,
             std::vector<RequestObserver*> observers = {}, RequestScreen screen = {});
  ~HttpServer();  // Stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds, listens and starts serving; returns once the port is bound. Throws std::runtime_error
  // when the address is invalid or cannot be bound, std::logic_error when called twice.
  void Start();
  // The bound port (useful with port 0); 0 before Start.
  std::uint16_t port() const;
  // Thread-safe; cheap enough for every scrape.
  HttpServerStats stats() const;
  // Graceful: stops accepting, closes idle keep-alive connections, lets in-flight requests finish
  // and write their response (with `Connection: close`), waits up to shutdown_grace for them, then
  // returns with every thread joined. Idempotent; safe to call from any thread but the server's
  // own.
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace docgate
