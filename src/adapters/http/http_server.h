#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "adapters/http/http_message.h"
#include "adapters/http/request_trace.h"
#include "app/random_source.h"

namespace docgate {

struct HttpConfig {
  std::string address = "127.0.0.1";  // an IPv4 or IPv6 literal
  std::uint16_t port = 8080;          // 0 picks a free port (see HttpServer::port)
  int io_threads = 2;                 // socket reads and writes only
  int worker_threads = 4;             // request handlers (blocking database work)
  // How long a connection may take to deliver a request (and stay idle between keep-alive
  // requests), and to accept a response.
  std::chrono::milliseconds read_timeout{30000};
  bool keep_alive = true;
  std::size_t body_limit = 1024 * 1024;  // larger bodies get 413 PAYLOAD_TOO_LARGE
  std::size_t header_limit = 16 * 1024;  // larger request headers get 400 VALIDATION
  // Stop() waits this long for in-flight requests before closing their connections.
  std::chrono::milliseconds shutdown_grace{30000};
};

// Called on a worker thread for each complete request; returns the response to send, and fills
// in the trace's route and caller. Must be thread-safe and should not throw (a thrown
// std::exception is logged and answered with 500).
using RequestHandler = std::function<HttpResponse(const HttpRequest&, RequestTrace&)>;

// An HTTP/1.1 server (Boost.Beast/Asio): `io_threads` threads run the sockets, and each request's
// handler runs on a bounded pool of `worker_threads`, so that blocking handlers never stall I/O.
// Keep-alive, per-connection read timeouts, a body limit (413) and a header limit (400) are
// enforced here; the response's Connection and Content-Length are set here.
//
// Every request gets an id (RequestTrace::request_id: the client's acceptable X-Request-Id, else
// `random`'s Token128), echoed in the response's X-Request-Id, errors and the 413/400 answered
// before routing included. Every answered request is shown once to each of `observers` (the
// request log, the metrics) just before its response is written; a connection that closes
// without an answer is not.
class HttpServer {
 public:
  // `random` and the observers must outlive the server.
  HttpServer(HttpConfig config, RequestHandler handler, RandomSource& random,
             std::vector<RequestObserver*> observers = {});
  ~HttpServer();  // Stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds, listens and starts serving; returns once the port is bound. Throws std::runtime_error
  // when the address is invalid or cannot be bound, std::logic_error when called twice.
  void Start();
  // The bound port (useful with port 0); 0 before Start.
  std::uint16_t port() const;
  // Graceful: stops accepting, closes idle keep-alive connections, lets in-flight requests finish
  // and write their response (with `Connection: close`), waits up to shutdown_grace for them, then
  // returns with every thread joined. Idempotent; safe to call from any thread but the server's own.
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace docgate
