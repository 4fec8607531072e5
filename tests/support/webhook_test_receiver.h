#pragma once

// A receiver of webhook deliveries for tests (issue 40): an HTTP server on 127.0.0.1 and a port
// of its own that records every request and answers each with the next scripted answer (200 with
// `{"errcode":0,"code":0}`, which every format accepts, when none is left). One connection at a
// time, each closed after its answer.

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace docgate::testing {

struct ReceivedRequest {
  std::string method;
  std::string target;                          // path and query
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;
};

struct ScriptedAnswer {
  int status = 200;
  std::map<std::string, std::string> headers;
  std::string body = R"({"errcode":0,"code":0})";
  std::chrono::milliseconds delay{0};  // before answering: a slow receiver
};

class WebhookTestReceiver {
 public:
  // Listens at once; throws on failure.
  WebhookTestReceiver();
  ~WebhookTestReceiver();
  WebhookTestReceiver(const WebhookTestReceiver&) = delete;
  WebhookTestReceiver& operator=(const WebhookTestReceiver&) = delete;

  std::uint16_t port() const { return port_; }
  // http://127.0.0.1:PORT + path
  std::string url(const std::string& path = "/hook") const;

  void Answer(ScriptedAnswer answer);  // queued: one request each
  std::vector<ReceivedRequest> requests() const;

 private:
  void Accept();

  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_;
  std::uint16_t port_ = 0;
  mutable std::mutex mutex_;
  std::deque<ScriptedAnswer> answers_;
  std::vector<ReceivedRequest> requests_;
  std::thread thread_;
};

}  // namespace docgate::testing
