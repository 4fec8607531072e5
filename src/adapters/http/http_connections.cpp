#include "adapters/http/http_server_impl.h"
#include "adapters/http/server_answers.h"

// The connections of HttpServer (http_server_impl.h): marked while they wait for a request, the
// longest-waiting evicted to make room for a new one (Accept, in http_server.cpp: clang 14 cannot
// build its coroutines apart), screened by their header before a body is read, and forgotten.

namespace docgate {

using namespace http_server_internal;

bool HttpServer::Impl::IsOperational(const HttpRequestHeader& header) const {
  if (header.method() != http::verb::get && header.method() != http::verb::head) return false;
  const std::string_view path = PathOf(header.target());
  return std::find(config.operational_paths.begin(), config.operational_paths.end(), path) !=
         config.operational_paths.end();
}

bool HttpServer::Impl::Stopping() {
  std::lock_guard lock(mutex);
  return stopping;
}

std::optional<HttpResponse> HttpServer::Impl::Screen(const Connection& conn,
                                                     const HttpRequestHeader& header,
                                                     RequestTrace& trace) {
  if (conn.spare && !IsOperational(header)) return Shed(kShedConnections, trace);
  if (!screen) return std::nullopt;
  return OrInternalError("screen", header,
                         [&]() -> std::optional<HttpResponse> { return screen(header, trace); });
}

bool HttpServer::Impl::StartWaiting(Connection& conn) {
  std::lock_guard lock(mutex);
  if (stopping) return false;
  conn.idle = true;
  conn.idle_since = std::chrono::steady_clock::now();
  return true;
}

bool HttpServer::Impl::StopWaiting(Connection& conn) {
  std::lock_guard lock(mutex);
  conn.idle = false;
  return !conn.evicted;
}

std::shared_ptr<Connection> HttpServer::Impl::EvictLongestWaiting() {
  std::shared_ptr<Connection> longest;
  for (const auto& conn : connections) {
    if (conn->idle && !conn->evicted && (!longest || conn->idle_since < longest->idle_since)) {
      longest = conn;
    }
  }
  if (longest) {
    longest->evicted = true;
    ++evicted_connections;
  }
  return longest;
}

void HttpServer::Impl::Forget(const std::shared_ptr<Connection>& conn) {
  {
    std::lock_guard lock(mutex);
    connections.erase(conn);
  }
  changed.notify_all();
}

}  // namespace docgate
