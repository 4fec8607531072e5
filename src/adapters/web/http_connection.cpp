#include "adapters/web/http_connection.h"

#include <openssl/ssl.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <vector>

#include "adapters/web/address_screen.h"

namespace docgate {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

bool IsAddress(const std::string& host) {
  boost::system::error_code ec;
  asio::ip::make_address(host, ec);
  return !ec;
}

// A keep-alive connection the server closed while it was idle fails at once, before any byte of
// an answer: the request never reached it and is sent again on a new connection.
bool ClosedWhileIdle(const beast::error_code& ec) {
  return ec == http::error::end_of_stream || ec == asio::error::connection_reset ||
         ec == asio::error::broken_pipe || ec == asio::error::eof;
}

// The endpoints of `found` that `destinations` allows, in the resolver's order. Throws
// UnsafeDestinationError naming the first refused address when none is left.
std::vector<asio::ip::tcp::endpoint> Allowed(const asio::ip::tcp::resolver::results_type& found,
                                             Destinations destinations, const std::string& host) {
  std::vector<asio::ip::tcp::endpoint> allowed;
  std::string refused;
  for (const auto& entry : found) {
    const asio::ip::tcp::endpoint endpoint = entry.endpoint();
    const AddressKind kind = KindOf(endpoint.address());
    if (destinations == Destinations::kAny || kind == AddressKind::kPublic) {
      allowed.push_back(endpoint);
    } else if (refused.empty()) {
      refused = endpoint.address().to_string() + ", " + std::string(DescribeAddressKind(kind));
    }
  }
  if (allowed.empty()) {
    throw UnsafeDestinationError(host + " resolves to " +
                                 (refused.empty() ? std::string("no address") : refused));
  }
  return allowed;
}

}  // namespace

std::shared_ptr<asio::ssl::context> MakeVerifyingTlsContext(const std::string& ca_file) {
  auto context = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
  context->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                       asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                       asio::ssl::context::no_tlsv1_1);
  context->set_verify_mode(asio::ssl::verify_peer);
  boost::system::error_code ec;
  if (ca_file.empty()) {
    context->set_default_verify_paths(ec);
  } else {
    context->load_verify_file(ca_file, ec);
  }
  if (ec) {
    throw std::runtime_error("cannot load the certificates to verify the server with (" +
                             (ca_file.empty() ? std::string("the system's") : ca_file) +
                             "): " + ec.message());
  }
  return context;
}

HttpConnection::HttpConnection(WebUrl url, std::shared_ptr<asio::ssl::context> tls,
                               std::chrono::milliseconds connect_timeout, Destinations destinations)
    : url_(std::move(url)),
      tls_context_(std::move(tls)),
      connect_timeout_(connect_timeout),
      destinations_(destinations) {}

HttpConnection::~HttpConnection() { Close(); }

beast::tcp_stream& HttpConnection::Tcp() { return tls_ ? beast::get_lowest_layer(*tls_) : *plain_; }

void HttpConnection::Run() {
  io_.restart();
  io_.run();
}

void HttpConnection::Close() {
  if (!plain_ && !tls_) return;
  beast::error_code ignored;
  Tcp().socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  Tcp().socket().close(ignored);
  plain_.reset();
  tls_.reset();
}

void HttpConnection::Connect() {
  Close();
  beast::error_code ec;
  asio::ip::tcp::resolver resolver(io_);
  asio::ip::tcp::resolver::results_type endpoints;
  resolver.async_resolve(url_.host, std::to_string(url_.port),
                         [&](beast::error_code e, asio::ip::tcp::resolver::results_type found) {
                           ec = e;
                           endpoints = std::move(found);
                         });
  Run();
  if (ec) throw HttpTransportError("cannot resolve " + url_.host + ": " + ec.message());
  const std::vector<asio::ip::tcp::endpoint> allowed = Allowed(endpoints, destinations_, url_.host);
  if (url_.tls) {
    tls_.emplace(io_, *tls_context_);
  } else {
    plain_.emplace(io_);
  }
  Tcp().expires_after(connect_timeout_);
  Tcp().async_connect(allowed, [&](beast::error_code e, const auto&) { ec = e; });
  Run();
  if (ec) {
    Close();
    throw HttpTransportError("cannot connect to " + url_.HostHeader() + ": " + ec.message());
  }
  if (!url_.tls) return;
  // SNI for names, and the certificate must name the host (RFC 6125), not merely be trusted.
  if (!IsAddress(url_.host)) SSL_set_tlsext_host_name(tls_->native_handle(), url_.host.c_str());
  tls_->set_verify_callback(asio::ssl::host_name_verification(url_.host));
  tls_->async_handshake(asio::ssl::stream_base::client, [&](beast::error_code e) { ec = e; });
  Run();
  if (ec) {
    Close();
    throw HttpTransportError("TLS with " + url_.HostHeader() + " failed: " + ec.message());
  }
}

HttpResponse HttpConnection::Exchange(const HttpRequest& request, std::chrono::milliseconds timeout,
                                      std::size_t body_limit) {
  const bool reused = plain_ || tls_;
  if (!reused) Connect();
  beast::error_code ec;
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(body_limit);
  Tcp().expires_after(timeout);
  const auto on_write = [&](beast::error_code e, std::size_t) {
    ec = e;
    if (ec) return;
    const auto on_read = [&](beast::error_code read_error, std::size_t) { ec = read_error; };
    if (tls_) {
      http::async_read(*tls_, buffer, parser, on_read);
    } else {
      http::async_read(*plain_, buffer, parser, on_read);
    }
  };
  if (tls_) {
    http::async_write(*tls_, request, on_write);
  } else {
    http::async_write(*plain_, request, on_write);
  }
  Run();
  if (ec) {
    Close();
    if (reused && !parser.got_some() && ClosedWhileIdle(ec)) {
      return Exchange(request, timeout, body_limit);
    }
    throw HttpTransportError(
        "the exchange with " + url_.HostHeader() + " failed: " +
        (ec == beast::error::timeout
             ? "no complete answer within " + std::to_string(timeout.count()) + " ms"
             : ec.message()));
  }
  HttpResponse response = parser.release();
  if (!response.keep_alive()) Close();
  return response;
}

}  // namespace docgate
