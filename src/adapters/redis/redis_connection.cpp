#include "adapters/redis/redis_connection.h"

#include <hiredis/hiredis.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>

#include <array>
#include <optional>

namespace docgate {
namespace asio = boost::asio;
using asio::ip::tcp;
using SteadyClock = std::chrono::steady_clock;

namespace {

RedisReply Converted(const redisReply& reply) {
  RedisReply out;
  switch (reply.type) {
    case REDIS_REPLY_STRING:
    case REDIS_REPLY_STATUS:
    case REDIS_REPLY_ERROR:
      out.type = reply.type == REDIS_REPLY_STRING   ? RedisReply::Type::kString
                 : reply.type == REDIS_REPLY_STATUS ? RedisReply::Type::kStatus
                                                    : RedisReply::Type::kError;
      out.text.assign(reply.str, reply.len);
      break;
    case REDIS_REPLY_INTEGER:
      out.type = RedisReply::Type::kInteger;
      out.integer = reply.integer;
      break;
    case REDIS_REPLY_ARRAY:
      out.type = RedisReply::Type::kArray;
      for (std::size_t i = 0; i < reply.elements; ++i) out.elements.push_back(Converted(*reply.element[i]));
      break;
    default:
      out.type = RedisReply::Type::kNil;
  }
  return out;
}

struct ReaderDeleter {
  void operator()(redisReader* reader) const { redisReaderFree(reader); }
};
struct ReplyDeleter {
  void operator()(void* reply) const { freeReplyObject(reply); }
};

}  // namespace

class RedisConnection::Impl {
 public:
  Impl(const RedisEndpoint& endpoint, asio::ssl::context* tls, std::chrono::milliseconds connect_timeout,
       std::chrono::milliseconds command_timeout)
      : socket_(io_), command_timeout_(command_timeout), reader_(redisReaderCreate()) {
    if (!reader_) throw RedisError("out of memory for the RESP reader");
    const auto deadline = SteadyClock::now() + connect_timeout;
    const std::string where = endpoint.host + ":" + endpoint.port;

    tcp::resolver resolver(io_);
    tcp::resolver::results_type endpoints;
    boost::system::error_code ec = asio::error::would_block;
    resolver.async_resolve(endpoint.host, endpoint.port,
                           [&](const boost::system::error_code& e, tcp::resolver::results_type r) {
                             ec = e;
                             endpoints = std::move(r);
                           });
    Await(deadline, ec, "resolving " + where, [&] { resolver.cancel(); });

    ec = asio::error::would_block;
    asio::async_connect(socket_, endpoints,
                        [&](const boost::system::error_code& e, const tcp::endpoint&) { ec = e; });
    Await(deadline, ec, "connecting to " + where);
    socket_.set_option(tcp::no_delay(true));

    if (endpoint.tls) {
      if (tls == nullptr) throw RedisError("rediss:// needs a TLS context");
      tls_.emplace(std::move(socket_), *tls);
      if (!SSL_set_tlsext_host_name(tls_->native_handle(), endpoint.host.c_str())) {
        throw RedisError("cannot set the TLS server name");
      }
      tls_->set_verify_mode(asio::ssl::verify_peer);
      tls_->set_verify_callback(asio::ssl::host_name_verification(endpoint.host));
      ec = asio::error::would_block;
      tls_->async_handshake(asio::ssl::stream_base::client,
                            [&](const boost::system::error_code& e) { ec = e; });
      Await(deadline, ec, "TLS handshake with " + where);
    }

    if (!endpoint.password.empty()) {
      std::vector<std::string_view> auth{"AUTH"};
      if (!endpoint.user.empty()) auth.push_back(endpoint.user);
      auth.push_back(endpoint.password);
      const RedisReply reply = Command(auth, deadline);
      if (reply.IsError()) throw RedisAuthError("AUTH failed: " + reply.text);
    }
    if (endpoint.db != 0) {
      const std::string db = std::to_string(endpoint.db);
      ExpectOk(Command({"SELECT", db}, deadline), "SELECT " + db);
    }
  }

  ~Impl() { Close(); }

  RedisReply Command(const std::vector<std::string_view>& args) {
    return Command(args, SteadyClock::now() + command_timeout_);
  }

 private:
  RedisReply Command(const std::vector<std::string_view>& args, SteadyClock::time_point deadline) {
    std::vector<const char*> argv;
    std::vector<std::size_t> lengths;
    for (const auto arg : args) {
      argv.push_back(arg.data());
      lengths.push_back(arg.size());
    }
    char* formatted = nullptr;
    const int length =
        redisFormatCommandArgv(&formatted, static_cast<int>(argv.size()), argv.data(), lengths.data());
    if (length < 0) throw RedisError("cannot format a Redis command");
    const std::unique_ptr<char, void (*)(char*)> command(formatted, redisFreeCommand);

    boost::system::error_code ec = asio::error::would_block;
    WithStream([&](auto& stream) {
      asio::async_write(stream, asio::buffer(command.get(), static_cast<std::size_t>(length)),
                        [&](const boost::system::error_code& e, std::size_t) { ec = e; });
    });
    Await(deadline, ec, "sending to Redis");

    for (;;) {
      void* raw = nullptr;
      if (redisReaderGetReply(reader_.get(), &raw) != REDIS_OK) {
        throw RedisError(std::string("Redis protocol error: ") + reader_->errstr);
      }
      if (raw != nullptr) {
        const std::unique_ptr<void, ReplyDeleter> reply(raw);
        return Converted(*static_cast<redisReply*>(raw));
      }
      std::size_t got = 0;
      ec = asio::error::would_block;
      WithStream([&](auto& stream) {
        stream.async_read_some(asio::buffer(buffer_), [&](const boost::system::error_code& e, std::size_t n) {
          ec = e;
          got = n;
        });
      });
      Await(deadline, ec, "reading from Redis");
      if (redisReaderFeed(reader_.get(), buffer_.data(), got) != REDIS_OK) {
        throw RedisError("Redis protocol error while reading");
      }
    }
  }

  static void ExpectOk(const RedisReply& reply, const std::string& what) {
    if (reply.IsError()) throw RedisError(what + " failed: " + reply.text);
  }

  template <typename Fn>
  void WithStream(Fn&& fn) {
    if (tls_) {
      fn(*tls_);
    } else {
      fn(socket_);
    }
  }

  // Runs the started operation until its handler has set `ec` or the deadline passes; then the
  // connection is closed (cancelling it) and RedisError thrown.
  template <typename Cancel>
  void Await(SteadyClock::time_point deadline, boost::system::error_code& ec, const std::string& what,
             Cancel cancel) {
    io_.restart();
    io_.run_until(deadline);
    if (ec == asio::error::would_block) {
      cancel();
      Close();
      io_.restart();
      io_.run();
      throw RedisError(what + " timed out");
    }
    if (ec) {
      Close();
      throw RedisError(what + ": " + ec.message());
    }
  }
  void Await(SteadyClock::time_point deadline, boost::system::error_code& ec, const std::string& what) {
    Await(deadline, ec, what, [] {});
  }

  void Close() {
    boost::system::error_code ignored;
    if (tls_) {
      tls_->lowest_layer().close(ignored);
    } else {
      socket_.close(ignored);
    }
  }

  asio::io_context io_;
  tcp::socket socket_;
  std::optional<asio::ssl::stream<tcp::socket>> tls_;
  std::chrono::milliseconds command_timeout_;
  std::unique_ptr<redisReader, ReaderDeleter> reader_;
  std::array<char, 16384> buffer_{};
};

RedisConnection::RedisConnection(const RedisEndpoint& endpoint, asio::ssl::context* tls,
                                 std::chrono::milliseconds connect_timeout,
                                 std::chrono::milliseconds command_timeout)
    : impl_(std::make_unique<Impl>(endpoint, tls, connect_timeout, command_timeout)) {}

RedisConnection::~RedisConnection() = default;

RedisReply RedisConnection::Command(const std::vector<std::string_view>& args) {
  return impl_->Command(args);
}

}  // namespace docgate
