#pragma once

// A small synchronous HTTP/1.1 client for the end-to-end tests: one connection, kept alive across
// requests, every exchange bounded by a timeout so that a broken server fails the test instead of
// hanging it.

// Boost 1.74's asio headers use std::exchange without including <utility>.
#include <utility>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace docgate::e2e {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

struct HttpReply {
  http::response<http::string_body> message;

  unsigned status() const { return message.result_int(); }
  const std::string& body() const { return message.body(); }
  std::string header(http::field field) const { return std::string(message[field]); }
  std::string header(const std::string& name) const { return std::string(message[name]); }
  nlohmann::json json() const { return nlohmann::json::parse(message.body()); }
};

using Headers = std::vector<std::pair<std::string, std::string>>;

class HttpClient {
 public:
  explicit HttpClient(std::uint16_t port,
                      std::chrono::milliseconds timeout = std::chrono::seconds(15))
      : port_(port), timeout_(timeout), stream_(ioc_) {
    stream_.expires_after(timeout_);
    beast::error_code ec;
    stream_.async_connect(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), port_),
                          [&ec](beast::error_code e) { ec = e; });
    Run();
    if (ec) throw std::runtime_error("connect: " + ec.message());
  }

  HttpReply Request(http::verb verb, const std::string& target, const std::string& body = {},
                    const Headers& headers = {}) {
    http::request<http::string_body> request{verb, target, 11};
    request.set(http::field::host, "127.0.0.1:" + std::to_string(port_));
    for (const auto& [name, value] : headers) request.set(name, value);
    if (!body.empty() || verb == http::verb::post || verb == http::verb::put) {
      request.body() = body;
      request.prepare_payload();
    }
    return Exchange([&](auto&& done) { http::async_write(stream_, request, done); },
                    verb == http::verb::head);
  }

  // Sends `bytes` as they are and reads one response.
  HttpReply Raw(const std::string& bytes) {
    return Exchange([&](auto&& done) { asio::async_write(stream_, asio::buffer(bytes), done); });
  }

  // Sends `bytes` as they are, reading nothing.
  void Send(const std::string& bytes) {
    stream_.expires_after(timeout_);
    beast::error_code ec;
    asio::async_write(stream_, asio::buffer(bytes),
                      [&ec](beast::error_code e, std::size_t) { ec = e; });
    Run();
    if (ec) throw std::runtime_error("send: " + ec.message());
  }

  // Reads one more response (after an interim 100 Continue, say).
  HttpReply Read() {
    return Exchange([](auto&& done) { done(beast::error_code{}, 0); });
  }

  // True when the server closes the connection within the timeout without sending anything.
  bool WaitForClose() {
    stream_.expires_after(timeout_);
    beast::error_code ec;
    char byte = 0;
    stream_.async_read_some(asio::buffer(&byte, 1),
                            [&ec](beast::error_code e, std::size_t) { ec = e; });
    Run();
    return ec == asio::error::eof || ec == asio::error::connection_reset;
  }

 private:
  // `head`: the answer to a HEAD, whose Content-Length announces a body that is not sent.
  template <typename Write>
  HttpReply Exchange(Write&& write, bool head = false) {
    stream_.expires_after(timeout_);
    // Write and read at once: a server may answer (413) before it has read the whole request.
    beast::error_code write_ec;
    beast::error_code read_ec;
    bool read_done = false;
    write([&write_ec](beast::error_code e, std::size_t) { write_ec = e; });
    http::response_parser<http::string_body> parser;
    parser.body_limit(boost::none);
    parser.skip(head);
    http::async_read(stream_, buffer_, parser, [&](beast::error_code e, std::size_t) {
      read_ec = e;
      read_done = true;
    });
    Run();
    if (!read_done || read_ec) {
      throw std::runtime_error("no response: " + read_ec.message() +
                               (write_ec ? " (write: " + write_ec.message() + ")" : ""));
    }
    return HttpReply{parser.release()};
  }

  void Run() {
    ioc_.restart();
    ioc_.run();
  }

  std::uint16_t port_;
  std::chrono::milliseconds timeout_;
  asio::io_context ioc_;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
};

}  // namespace docgate::e2e
