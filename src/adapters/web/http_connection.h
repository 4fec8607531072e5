#pragma once

// Boost 1.74's asio headers use std::exchange without including <utility>.
#include <utility>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "adapters/web/web_url.h"

namespace docgate {

using HttpRequest = boost::beast::http::request<boost::beast::http::string_body>;
using HttpResponse = boost::beast::http::response<boost::beast::http::string_body>;

// The exchange did not complete: no connection, TLS refused (an unverifiable certificate), a
// timeout, or the connection broke. The request may or may not have reached the server.
class HttpTransportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The URL's host resolved to no address docgate may connect to (Destinations::kPublicOnly): no
// connection was attempted.
class UnsafeDestinationError : public HttpTransportError {
 public:
  using HttpTransportError::HttpTransportError;
};

// Where a connection may go. kPublicOnly is for URLs that users give (webhooks): the host's
// addresses are resolved and screened (address_screen.h) at every connect, and only the public
// ones are tried, so a name that resolves to a private address now, or a spelling of one
// ("2130706433", "::ffff:127.0.0.1"), never reaches it.
enum class Destinations { kAny, kPublicOnly };

// The TLS settings every connection to one https:// server shares: peer verification against
// `ca_file` (PEM) or, when empty, the system's trust store. Throws std::runtime_error when the
// file cannot be read.
std::shared_ptr<boost::asio::ssl::context> MakeVerifyingTlsContext(const std::string& ca_file);

// One HTTP/1.1 connection to one server, kept alive between exchanges and opened again when the
// server closed it. Over TLS, the server's certificate must verify and name the URL's host.
// Not thread-safe: one exchange at a time (callers pool connections).
class HttpConnection {
 public:
  // `tls` is required for an https:// `url` and ignored otherwise.
  HttpConnection(WebUrl url, std::shared_ptr<boost::asio::ssl::context> tls,
                 std::chrono::milliseconds connect_timeout,
                 Destinations destinations = Destinations::kAny);
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  // Sends `request` and reads the whole response, both within `timeout` (the connect, when one
  // is needed, within connect_timeout before it). A response body larger than `body_limit` bytes
  // is an error. Throws HttpTransportError (UnsafeDestinationError before connecting when the
  // destinations allow none of the host's addresses); the connection is then closed.
  HttpResponse Exchange(const HttpRequest& request, std::chrono::milliseconds timeout,
                        std::size_t body_limit);

 private:
  using TlsStream = boost::beast::ssl_stream<boost::beast::tcp_stream>;

  void Connect();
  void Close();
  boost::beast::tcp_stream& Tcp();
  // Runs the io_context until the started operation completes.
  void Run();

  const WebUrl url_;
  const std::shared_ptr<boost::asio::ssl::context> tls_context_;
  const std::chrono::milliseconds connect_timeout_;
  const Destinations destinations_;
  boost::asio::io_context io_;
  std::optional<boost::beast::tcp_stream> plain_;
  std::optional<TlsStream> tls_;
};

}  // namespace docgate
