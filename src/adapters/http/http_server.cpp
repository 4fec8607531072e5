#include "adapters/http/http_server.h"

#include "adapters/http/error_mapper.h"
#include "adapters/http/http_server_impl.h"
#include "adapters/http/request_params.h"
#include "adapters/http/server_answers.h"

// A request's way through HttpServer (http_server_impl.h): its connection accepted, the request
// read, dispatched to a work lane, answered and observed; and the server's start and stop. The
// bookkeeping of waiting connections is http_connections.cpp's.

namespace docgate {

using namespace http_server_internal;

asio::awaitable<void> HttpServer::Impl::Accept() {
  for (;;) {
    beast::error_code ec;
    tcp::socket socket = co_await acceptor.async_accept(
        asio::make_strand(ioc), asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      if (ec == asio::error::operation_aborted || !acceptor.is_open()) break;
      // Typically out of file descriptors: pause instead of spinning on the error.
      spdlog::warn("http: accept failed: {}", ec.message());
      asio::steady_timer pause(acceptor.get_executor(), 100ms);
      co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      continue;
    }
    auto conn = std::make_shared<Connection>(std::move(socket));
    std::shared_ptr<Connection> evicted;
    {
      std::lock_guard lock(mutex);
      if (stopping) continue;  // closed by its destructor
      // The evicted connection counts until it has closed: the bound holds all along.
      if (connections.size() >= config.max_connections + kSpareConnections &&
          !(evicted = EvictLongestWaiting())) {
        ++refused_connections;
        continue;
      }
      conn->spare = connections.size() >= config.max_connections;
      connections.insert(conn);
    }
    // Wakes its read; Serve then sees it evicted and closes it, even if its header came in.
    if (evicted) {
      asio::post(evicted->stream.get_executor(), [evicted] { evicted->stream.cancel(); });
    }
    asio::co_spawn(conn->stream.get_executor(), Serve(conn), asio::detached);
  }
  {
    std::lock_guard lock(mutex);
    accepting = false;
  }
  changed.notify_all();
}

asio::awaitable<void> HttpServer::Impl::Serve(std::shared_ptr<Connection> conn) {
  beast::tcp_stream& stream = conn->stream;
  // Bounded: the parser limits the header and the body, but not a chunk-size line or a trailer.
  beast::flat_buffer buffer(config.header_limit + kReadAhead);
  const auto bounded = [spare = conn->spare](std::chrono::milliseconds timeout) {
    return spare ? std::min<std::chrono::milliseconds>(timeout, kSpareReadTimeout) : timeout;
  };
  for (bool first = true;; first = false) {
    if (!StartWaiting(*conn)) break;
    beast::error_code ec;
    if (!first && buffer.size() == 0) {
      // Kept alive: the next request may take read_timeout to begin, then header_timeout.
      stream.expires_after(bounded(config.read_timeout));
      buffer.commit(co_await stream.async_read_some(buffer.prepare(kFirstRead),
                                                    asio::redirect_error(asio::use_awaitable, ec)));
    }
    http::request_parser<http::string_body> parser;
    // The larger limit until the header says which applies (a Content-Length above the limit
    // fails the header's read).
    parser.body_limit(std::max(config.body_limit, config.upload_body_limit));
    parser.header_limit(static_cast<std::uint32_t>(config.header_limit));
    if (!ec) {
      stream.expires_after(bounded(config.header_timeout));
      co_await http::async_read_header(stream, buffer, parser,
                                       asio::redirect_error(asio::use_awaitable, ec));
    }
    if (!StopWaiting(*conn)) break;
    const auto started_at = std::chrono::steady_clock::now();
    RequestTrace trace;
    trace.request_id = RequestIdOf(parser.get().base());

    // The answer, once known; a body left unread closes the connection after it.
    std::optional<HttpResponse> answer;
    bool body_unread = false;
    std::size_t body_limit = config.body_limit;
    if (!ec) {
      const bool upload = config.upload_body_limit > 0 &&
                          parser.get().method() == http::verb::post &&
                          PathOf(parser.get().target()) == config.upload_path;
      if (upload) body_limit = config.upload_body_limit;
      if (parser.content_length() && *parser.content_length() > body_limit) {
        ec = http::error::body_limit;
      } else {
        parser.body_limit(body_limit);  // what a chunked body may still send
        answer = Screen(*conn, parser.get(), trace);
        body_unread = answer && !parser.is_done();
      }
    }
    if (!ec && !answer) {
      stream.expires_after(config.read_timeout);
      if (!parser.is_done() && beast::iequals(parser.get()[http::field::expect], "100-continue")) {
        http::response<http::empty_body> go_on{http::status::continue_, parser.get().version()};
        co_await http::async_write(stream, go_on, asio::redirect_error(asio::use_awaitable, ec));
      }
      if (!ec) {
        co_await http::async_read(stream, buffer, parser,
                                  asio::redirect_error(asio::use_awaitable, ec));
      }
    }
    if (ec) {
      answer = TransportProblem(ec, config, body_limit);
      if (!answer) break;  // the connection went away, or timed out
      body_unread = true;
    }
    std::optional<HttpRequest> request;
    if (!answer) {
      request = parser.release();
      stream.expires_never();
      answer = co_await Dispatch(IsOperational(*request) ? operational : workers, *request, trace);
    }
    const HttpRequestHeader& header = request ? *request : parser.get();
    const bool asked_keep_alive = request ? request->keep_alive() : parser.get().keep_alive();
    HttpResponse& response = *answer;
    const bool keep_alive =
        config.keep_alive && !conn->spare && !body_unread && asked_keep_alive && !Stopping();
    LocalizeServerAnswer(response, header);
    response.version(header.version());
    response.keep_alive(keep_alive);
    response.prepare_payload();
    if (header.method() == http::verb::head) response.body().clear();
    Answered(header.method(), trace, response, started_at);
    stream.expires_after(config.read_timeout);
    co_await http::async_write(stream, response, asio::redirect_error(asio::use_awaitable, ec));
    if (body_unread && !ec) co_await LingeringClose(*conn);
    if (ec || !keep_alive) break;
  }
  beast::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
  stream.close();
  Forget(conn);
}

// After refusing a request whose body we did not read: half-close and discard what the client
// is still sending, so that closing does not reset the connection before it reads our answer.
asio::awaitable<void> HttpServer::Impl::LingeringClose(Connection& conn) {
  beast::error_code ec;
  conn.stream.socket().shutdown(tcp::socket::shutdown_send, ec);
  conn.stream.expires_after(kDrainTimeout);
  std::array<char, 16 * 1024> scratch;
  std::size_t drained = 0;
  while (!ec && drained < kMaxDrainBytes) {
    drained += co_await conn.stream.async_read_some(asio::buffer(scratch),
                                                    asio::redirect_error(asio::use_awaitable, ec));
  }
}

std::string HttpServer::Impl::RequestIdOf(const http::fields& fields) {
  const auto given = fields.find(kRequestIdHeader);
  if (given != fields.end() && IsAcceptableRequestId(View(given->value()))) {
    return std::string(View(given->value()));
  }
  return random.Token128();
}

void HttpServer::Impl::Answered(HttpVerb verb, const RequestTrace& trace, HttpResponse& response,
                                std::chrono::steady_clock::time_point started_at) {
  response.set(kRequestIdHeader, trace.request_id);
  const CompletedRequest completed{MethodLabel(verb), trace, response,
                                   std::chrono::steady_clock::now() - started_at};
  for (RequestObserver* observer : observers) observer->OnRequest(completed);
}

HttpResponse HttpServer::Impl::Invoke(const HttpRequest& request, RequestTrace& trace) {
  return OrInternalError("handler", request, [&] { return handler(request, trace); });
}

asio::awaitable<HttpResponse> HttpServer::Impl::Dispatch(WorkLane& lane, const HttpRequest& request,
                                                         RequestTrace& trace) {
  // `request` and `trace` live in the suspended caller's frame until the completion resumes it.
  // The completion runs once, on the caller's strand: from the worker that ran the job, or from
  // the queue timer when it withdrew the job before any worker took it.
  return asio::async_initiate<const asio::use_awaitable_t<>&, void(HttpResponse)>(
      [this, &lane, &request, &trace](auto completion) {
        using Completion = decltype(completion);
        struct Pending {
          Pending(Completion c, asio::steady_timer t)
              : completion(std::move(c)), timer(std::move(t)) {}
          Completion completion;
          asio::steady_timer timer;
          WorkLane::Ticket ticket = 0;
        };
        auto executor = asio::get_associated_executor(completion);
        auto pending = std::make_shared<Pending>(
            std::move(completion), asio::steady_timer(executor, config.queue_timeout));
        const auto ticket = lane.TryPost([this, &request, &trace, pending] {
          HttpResponse response = Invoke(request, trace);
          asio::dispatch(pending->timer.get_executor(),
                         [pending, response = std::move(response)]() mutable {
                           pending->timer.cancel();
                           std::move(pending->completion)(std::move(response));
                         });
        });
        if (!ticket) {
          asio::post(executor, [pending, &trace] {
            std::move(pending->completion)(Shed(kShedQueueFull, trace));
          });
          return;
        }
        pending->ticket = *ticket;
        pending->timer.async_wait([pending, &lane, &trace](const beast::error_code& ec) {
          if (ec || !lane.Withdraw(pending->ticket)) return;
          std::move(pending->completion)(Shed(kShedQueueTimeout, trace));
        });
      },
      asio::use_awaitable);
}

HttpServer::HttpServer(HttpConfig config, RequestHandler handler, RandomSource& random,
                       std::vector<RequestObserver*> observers, RequestScreen screen)
    : impl_(std::make_unique<Impl>(std::move(config), std::move(handler), random,
                                   std::move(observers), std::move(screen))) {}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::Start() {
  Impl& s = *impl_;
  {
    std::lock_guard lock(s.mutex);
    if (s.started) throw std::logic_error("HttpServer::Start called twice");
  }
  try {
    const tcp::endpoint endpoint(asio::ip::make_address(s.config.address), s.config.port);
    s.acceptor.open(endpoint.protocol());
    s.acceptor.set_option(asio::socket_base::reuse_address(true));
    s.acceptor.bind(endpoint);
    s.acceptor.listen(asio::socket_base::max_listen_connections);
  } catch (const boost::system::system_error& e) {
    throw std::runtime_error("cannot listen on " + s.config.address + ":" +
                             std::to_string(s.config.port) + ": " + e.code().message());
  }
  {
    std::lock_guard lock(s.mutex);
    s.bound_port = s.acceptor.local_endpoint().port();
    s.started = true;
    s.accepting = true;
  }
  asio::co_spawn(s.acceptor.get_executor(), s.Accept(), asio::detached);
  const int threads = std::max(1, s.config.io_threads);
  for (int i = 0; i < threads; ++i) {
    s.threads.emplace_back([&s] {
      NameThisThread("http-io");
      s.ioc.run();
    });
  }
  spdlog::info("http: listening on {}:{}", s.config.address, s.bound_port);
}

std::uint16_t HttpServer::port() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->bound_port;
}

HttpServerStats HttpServer::stats() const {
  HttpServerStats stats;
  {
    std::lock_guard lock(impl_->mutex);
    stats.connections = impl_->connections.size();
    stats.waiting =
        static_cast<std::size_t>(std::count_if(impl_->connections.begin(), impl_->connections.end(),
                                               [](const auto& conn) { return conn->idle; }));
    stats.refused_connections = impl_->refused_connections;
    stats.evicted_connections = impl_->evicted_connections;
  }
  std::tie(stats.busy_workers, stats.queued) = impl_->workers.Load();
  return stats;
}

void HttpServer::Stop() {
  Impl& s = *impl_;
  std::vector<std::shared_ptr<Connection>> idle;
  {
    std::lock_guard lock(s.mutex);
    if (!s.started || s.stopping) return;
    s.stopping = true;
    for (const auto& conn : s.connections) {
      if (conn->idle) idle.push_back(conn);
    }
  }
  asio::post(s.acceptor.get_executor(), [&s] {
    beast::error_code ignored;
    s.acceptor.close(ignored);
  });
  // Re-checked on the connection's strand: it may have started reading a request meanwhile.
  for (const auto& conn : idle) {
    asio::post(conn->stream.get_executor(), [&s, conn] {
      std::lock_guard lock(s.mutex);
      if (conn->idle) conn->stream.cancel();
    });
  }
  bool drained = false;
  {
    std::unique_lock lock(s.mutex);
    const auto done = [&s] { return s.connections.empty() && !s.accepting; };
    drained = s.changed.wait_for(lock, s.config.shutdown_grace, done);
    if (!drained) {
      spdlog::warn("http: {} connection(s) still busy after the shutdown grace; closing them",
                   s.connections.size());
      for (const auto& conn : s.connections) {
        asio::post(conn->stream.get_executor(), [conn] { conn->stream.close(); });
      }
      drained = s.changed.wait_for(lock, kForcedStopWait, done);
    }
  }
  s.work.reset();
  if (!drained) s.ioc.stop();
  for (auto& thread : s.threads) thread.join();
  s.threads.clear();
  s.workers.Join();
  s.operational.Join();
  spdlog::info("http: stopped");
}

}  // namespace docgate
