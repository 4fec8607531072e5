#pragma once

// What relay_bench's parts share: relay_bench.cpp (the modes' flags, main and the helpers below),
// relay_throughput.cpp and relay_latency.cpp. What the bench measures: relay_bench.cpp's comment.

#include <amqp.h>
#include <amqp_framing.h>
#include <amqp_tcp_socket.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "adapters/amqp/amqp_event_sink.h"
#include "adapters/amqp/amqp_url.h"
#include "adapters/amqp/event_message.h"
#include "adapters/http/jwt_auth.h"
#include "adapters/pg/pg_stores.h"
#include "e2e/http_client.h"
#include "runtime/application.h"
#include "support/amqp_test_queue.h"
#include "support/pg_test_database.h"
#include "worker/outbox_relay.h"

namespace relay_bench {

using docgate::OutboxEvent;
using Steady = std::chrono::steady_clock;
using std::chrono::milliseconds;
namespace http = boost::beast::http;

// relay_bench.cpp: what every part uses.
[[noreturn]] void Die(const std::string& why);
std::string RequiredEnv(const char* name);
double Seconds(Steady::duration d);
// Nearest rank: the smallest sample with at least p of the samples at or below it.
double Percentile(std::vector<double> samples, double p);
double Median(std::vector<double> samples);
// N events, one per document (each its document's head), with UUID-shaped unique ids.
std::vector<OutboxEvent> BacklogEvents(int n, int salt);

// The two modes (relay_throughput.cpp, relay_latency.cpp); each returns main's exit status.
int Throughput(int events, const std::vector<int>& batches, int rounds);
int Latency(int documents, int rate, int threads);

// ---- Plain rabbitmq-c: the floor, and queue administration ------------------------------------

// One AMQP connection with channel 1 open, written directly against rabbitmq-c (no docgate code):
// what a hand-written publisher would do. Every RPC and wait is bounded by 10 s.
class RawAmqp {
 public:
  RawAmqp(const docgate::AmqpEndpoint& endpoint) : state_(amqp_new_connection()) {
    if (endpoint.tls) Die("the floor speaks plain amqp:// only");
    amqp_socket_t* socket = amqp_tcp_socket_new(state_);
    if (socket == nullptr) Die("amqp_tcp_socket_new failed");
    const timeval timeout{10, 0};
    if (amqp_socket_open_noblock(socket, endpoint.host.c_str(), endpoint.port, &timeout) !=
        AMQP_STATUS_OK) {
      Die("cannot connect to " + docgate::HostPort(endpoint));
    }
    amqp_set_rpc_timeout(state_, &timeout);
    Check(amqp_login(state_, endpoint.vhost.c_str(), 0, AMQP_DEFAULT_FRAME_SIZE,
                     endpoint.heartbeat_seconds, AMQP_SASL_METHOD_PLAIN, endpoint.user.c_str(),
                     endpoint.password.c_str()),
          "login");
    amqp_channel_open(state_, kChannel);
    Check(amqp_get_rpc_reply(state_), "channel.open");
  }
  ~RawAmqp() {
    amqp_connection_close(state_, AMQP_REPLY_SUCCESS);
    amqp_destroy_connection(state_);
  }
  RawAmqp(const RawAmqp&) = delete;
  RawAmqp& operator=(const RawAmqp&) = delete;

  amqp_connection_state_t state() const { return state_; }

  void ConfirmSelect() {
    amqp_confirm_select(state_, kChannel);
    Check(amqp_get_rpc_reply(state_), "confirm.select");
  }
  // The durable topic exchange and durable queue AmqpEventSink declares, bound with document.#.
  void DeclareBoundQueue(const std::string& exchange, const std::string& queue) {
    amqp_exchange_declare(state_, kChannel, amqp_cstring_bytes(exchange.c_str()),
                          amqp_cstring_bytes("topic"), 0, /*durable=*/1, 0, 0, amqp_empty_table);
    Check(amqp_get_rpc_reply(state_), "exchange.declare");
    amqp_queue_declare(state_, kChannel, amqp_cstring_bytes(queue.c_str()), 0, /*durable=*/1, 0, 0,
                       amqp_empty_table);
    Check(amqp_get_rpc_reply(state_), "queue.declare");
    amqp_queue_bind(state_, kChannel, amqp_cstring_bytes(queue.c_str()),
                    amqp_cstring_bytes(exchange.c_str()), amqp_cstring_bytes("document.#"),
                    amqp_empty_table);
    Check(amqp_get_rpc_reply(state_), "queue.bind");
  }
  // Empties the queue; returns how many messages it held.
  std::uint32_t Purge(const std::string& queue) {
    const auto* ok = amqp_queue_purge(state_, kChannel, amqp_cstring_bytes(queue.c_str()));
    Check(amqp_get_rpc_reply(state_), "queue.purge");
    return ok->message_count;
  }
  void Delete(const std::string& exchange, const std::string& queue) {
    amqp_queue_delete(state_, kChannel, amqp_cstring_bytes(queue.c_str()), 0, 0);
    Check(amqp_get_rpc_reply(state_), "queue.delete");
    amqp_exchange_delete(state_, kChannel, amqp_cstring_bytes(exchange.c_str()), 0);
    Check(amqp_get_rpc_reply(state_), "exchange.delete");
  }

  static constexpr amqp_channel_t kChannel = 1;

 private:
  void Check(const amqp_rpc_reply_t& reply, const char* what) {
    if (reply.reply_type != AMQP_RESPONSE_NORMAL)
      Die(std::string("rabbitmq-c: ") + what + " failed");
  }

  amqp_connection_state_t state_;
};

}  // namespace relay_bench
