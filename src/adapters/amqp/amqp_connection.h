#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "adapters/amqp/amqp_url.h"

// rabbitmq-c's types, kept out of this header.
struct amqp_connection_state_t_;
struct amqp_frame_t_;

namespace docgate {

// A failure of the AMQP connection: refused, TLS, login, an RPC refused by the broker, a channel or
// connection closed by the broker (the message quotes its reply), a socket error, a missed
// heartbeat or a deadline run out. The connection is unusable afterwards.
class AmqpError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// x-arguments of a queue declaration (x-max-length = 1, x-overflow = "reject-publish", ...), and a
// message's headers.
using AmqpArguments = std::vector<std::pair<std::string, std::variant<std::int64_t, std::string>>>;

// The parts of a message docgate sets and reads.
struct AmqpMessage {
  std::string routing_key;  // as published (for a returned or delivered message)
  std::string message_id;
  std::string content_type;
  std::string type;
  std::uint8_t delivery_mode = 0;  // 2: persistent
  std::uint64_t timestamp = 0;     // seconds since the epoch
  std::string expiration;          // per-message TTL, decimal milliseconds ("300"); empty: none
  // Integer headers (of any width, read as int64) and string ones; headers of other kinds (tables,
  // arrays, booleans, such as the broker's x-death) are not read.
  AmqpArguments headers;
  std::string body;
};

// Something the broker sent on the channel, as Next() reports it.
struct AmqpInbound {
  enum class Kind {
    kAck,        // publisher confirm: delivery_tag (and every tag before it when `multiple`)
    kNack,       // publisher refusal, same tags
    kReturn,     // a mandatory message nobody could take: `message`, and `reply` ("312 NO_ROUTE")
    kDeliver,    // a consumed message (or one Get took): `message`, delivery_tag, redelivered
    kBlocked,    // the broker stopped reading from this connection (resource alarm): `reply`
    kUnblocked,  // ... and reads again
  };
  Kind kind = Kind::kAck;
  std::uint64_t delivery_tag = 0;
  bool multiple = false;
  bool redelivered = false;
  std::string reply;
  AmqpMessage message;
};

// One AMQP 0-9-1 connection (rabbitmq-c) with channel 1 open, the only channel it uses. Every call
// takes a deadline and returns or throws AmqpError by then: the constructor (TCP connect, TLS
// handshake, login, channel.open), each RPC, each publish (it waits for the socket to become
// writable; rabbitmq-c itself writes without a deadline, and a writable socket has room for a small
// message) and Next(). After an AmqpError the connection is dead; destroy it. Destruction closes
// the socket without the AMQP close handshake (Close() does that first). Not thread-safe: one
// thread at a time.
//
// amqps:// verifies the server's certificate against `ca_file` (PEM; empty: the system's trust
// store) and checks that it names the URL's host (DNS name or IP address, by OpenSSL's own check).
class AmqpConnection {
 public:
  using Clock = std::chrono::steady_clock;

  AmqpConnection(const AmqpEndpoint& endpoint, const std::string& ca_file,
                 Clock::time_point deadline);
  ~AmqpConnection();
  AmqpConnection(const AmqpConnection&) = delete;
  AmqpConnection& operator=(const AmqpConnection&) = delete;

  // Puts the channel in publisher-confirm mode: every publish after it is acked or nacked, with
  // delivery tags 1, 2, ... in publish order.
  void ConfirmSelect(Clock::time_point deadline);
  // A durable topic exchange (not auto-deleted, not internal, no arguments): the one declaration
  // docgate and its tests share, so that redeclaring it never conflicts.
  void DeclareExchange(const std::string& name, Clock::time_point deadline);
  void DeleteExchange(const std::string& name, Clock::time_point deadline);
  // Returns the queue's name (the server's choice when `name` is empty).
  std::string DeclareQueue(const std::string& name, bool durable, bool exclusive, bool auto_delete,
                           const AmqpArguments& arguments, Clock::time_point deadline);
  void BindQueue(const std::string& queue, const std::string& exchange,
                 const std::string& binding_key, Clock::time_point deadline);
  void DeleteQueue(const std::string& name, Clock::time_point deadline);
  // The number of messages ready in an existing queue (a passive declaration: a missing queue
  // closes the channel, AmqpError).
  std::int64_t MessageCount(const std::string& queue, Clock::time_point deadline);

  // basic.qos: at most `prefetch` unacknowledged deliveries to each consumer started after it.
  void Qos(std::uint16_t prefetch, Clock::time_point deadline);
  enum class Acks {
    kNone,    // the broker forgets a message once it is sent
    kManual,  // each delivery stays unsettled until Ack or Reject of its delivery tag
  };
  // Starts delivering the queue's messages (kDeliver).
  void Consume(const std::string& queue, Clock::time_point deadline, Acks acks = Acks::kNone);
  // basic.get with acknowledgements: the queue's next message as a kDeliver (settle it with Ack or
  // Reject), or nullopt when the queue is empty. Whatever else arrives meanwhile (deliveries to a
  // consumer on the channel, confirms) is kept, in order, for Next().
  std::optional<AmqpInbound> Get(const std::string& queue, Clock::time_point deadline);
  // Settle a delivery of Consume(kManual) or Get by its delivery tag (never several at once): Ack
  // forgets it; Reject puts it back at its place in its queue when `requeue`, else drops it.
  // They return once written; the broker does not answer them.
  void Ack(std::uint64_t delivery_tag, Clock::time_point deadline);
  void Reject(std::uint64_t delivery_tag, bool requeue, Clock::time_point deadline);

  // Sends one basic.publish with message's routing key, properties (content_type, delivery_mode,
  // message_id, type, timestamp, expiration, headers; empty/zero ones are left out) and body.
  // Returns once it is written; its fate arrives later through Next().
  void Publish(const std::string& exchange, const AmqpMessage& message, bool mandatory,
               Clock::time_point deadline);

  // The next ack, nack, return, delivery or (un)block, or nullopt once `deadline` has passed
  // without one. A deadline already past polls without blocking. Once a message's first frame is
  // in, its remaining frames are awaited until the later of `deadline` and `content_deadline` (so
  // that a poll does not fail on a message whose frames span two reads). Sends heartbeats when due
  // and notices missed ones. Throws AmqpError when the broker closes the channel or the connection
  // (quoting its reply code and text), on a socket error or a heartbeat timeout.
  std::optional<AmqpInbound> Next(Clock::time_point deadline,
                                  Clock::time_point content_deadline = {});

  // connection.close and its close-ok, bounded by `deadline`; never throws (a broker that does
  // not answer is simply left).
  void Close(Clock::time_point deadline) noexcept;

 private:
  struct Destroy {
    void operator()(amqp_connection_state_t_* state) const;
  };
  // The next frame on any channel, the broker's channel.close and connection.close turned into
  // AmqpError; false once the deadline has passed.
  bool NextFrame(amqp_frame_t_& frame, Clock::time_point deadline);
  // What a method frame reports (reading a message's content until `content_deadline`), or nullopt
  // for one docgate did not ask for.
  std::optional<AmqpInbound> Decode(const amqp_frame_t_& frame, Clock::time_point content_deadline);
  // Reads the content header and body frames that follow a basic.return, basic.deliver or
  // basic.get-ok.
  void ReadContent(AmqpMessage& message, Clock::time_point deadline);
  // Waits until the socket takes more data.
  void AwaitWritable(Clock::time_point deadline);

  std::string where_;
  std::unique_ptr<amqp_connection_state_t_, Destroy> state_;
  std::deque<AmqpInbound> pending_;  // read by Get() for Next()
};

}  // namespace docgate
