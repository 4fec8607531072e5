#include "support/webhook_test_receiver.h"

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <cctype>

namespace docgate::testing {

namespace asio = boost::asio;
namespace http = boost::beast::http;

WebhookTestReceiver::WebhookTestReceiver()
    : acceptor_(io_, {asio::ip::make_address("127.0.0.1"), 0}) {
  port_ = acceptor_.local_endpoint().port();
  Accept();
  thread_ = std::thread([this] { io_.run(); });
}

WebhookTestReceiver::~WebhookTestReceiver() {
  io_.stop();
  thread_.join();
}

std::string WebhookTestReceiver::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

void WebhookTestReceiver::Answer(ScriptedAnswer answer) {
  std::lock_guard lock(mutex_);
  answers_.push_back(std::move(answer));
}

std::vector<ReceivedRequest> WebhookTestReceiver::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

// Each connection is served in the io thread, to its end, before the next is accepted.
void WebhookTestReceiver::Accept() {
  acceptor_.async_accept([this](boost::system::error_code ec, asio::ip::tcp::socket socket) {
    if (ec) return;
    boost::beast::flat_buffer buffer;
    http::request<http::string_body> request;
    http::read(socket, buffer, request, ec);
    if (!ec) {
      ReceivedRequest received{
          std::string(request.method_string()), std::string(request.target()), {}, request.body()};
      for (const auto& field : request) {
        std::string name(field.name_string());
        for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        received.headers[name] = std::string(field.value());
      }
      ScriptedAnswer answer;
      {
        std::lock_guard lock(mutex_);
        requests_.push_back(std::move(received));
        if (!answers_.empty()) {
          answer = std::move(answers_.front());
          answers_.pop_front();
        }
      }
      if (answer.delay.count() > 0) std::this_thread::sleep_for(answer.delay);
      http::response<http::string_body> response{static_cast<http::status>(answer.status), 11};
      for (const auto& [name, value] : answer.headers) response.set(name, value);
      response.set(http::field::connection, "close");
      response.body() = answer.body;
      response.prepare_payload();
      http::write(socket, response, ec);
    }
    socket.close(ec);
    Accept();
  });
}

}  // namespace docgate::testing
