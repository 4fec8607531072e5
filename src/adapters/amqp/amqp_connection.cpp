#include "adapters/amqp/amqp_connection.h"

#include <amqp.h>
#include <amqp_framing.h>
#include <poll.h>

#include <cerrno>

#include "adapters/amqp/amqp_socket.h"
#include "adapters/amqp/amqp_wire.h"

namespace docgate {
namespace {

using Clock = AmqpConnection::Clock;

constexpr amqp_channel_t kChannel = 1;

// What is left until `deadline`; zero once it has passed, which rabbitmq-c reads as "poll without
// blocking" (still sending due heartbeats and noticing missed ones).
timeval Until(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::microseconds>(deadline - Clock::now());
  const auto micros = std::max<std::int64_t>(left.count(), 0);
  return timeval{static_cast<time_t>(micros / 1000000), static_cast<suseconds_t>(micros % 1000000)};
}

std::string Quoted(const std::string& name) { return "'" + name + "'"; }

[[noreturn]] void Fail(const std::string& what, int status) {
  throw AmqpError(what + ": " + amqp_error_string2(status));
}

// The broker's side of a close: "404 NOT_FOUND - no exchange 'x' in vhost '/'".
template <typename CloseMethod>
std::string CloseReason(const amqp_method_t& method) {
  const auto* close = static_cast<const CloseMethod*>(method.decoded);
  return std::to_string(close->reply_code) + " " + Text(close->reply_text);
}

// Answers the broker's channel.close or connection.close (best effort: the connection is dropped
// right after) and returns the error describing it.
AmqpError BrokerClosed(amqp_connection_state_t state, const amqp_method_t& method,
                       std::string_view what) {
  if (method.id == AMQP_CONNECTION_CLOSE_METHOD) {
    amqp_connection_close_ok_t ok{};
    amqp_send_method(state, 0, AMQP_CONNECTION_CLOSE_OK_METHOD, &ok);
    return AmqpError(std::string(what) + ": the broker closed the connection: " +
                     CloseReason<amqp_connection_close_t>(method));
  }
  amqp_channel_close_ok_t ok{};
  amqp_send_method(state, kChannel, AMQP_CHANNEL_CLOSE_OK_METHOD, &ok);
  return AmqpError(std::string(what) +
                   ": the broker closed the channel: " + CloseReason<amqp_channel_close_t>(method));
}

void Check(amqp_connection_state_t state, const amqp_rpc_reply_t& reply, std::string_view what) {
  switch (reply.reply_type) {
    case AMQP_RESPONSE_NORMAL:
      return;
    case AMQP_RESPONSE_LIBRARY_EXCEPTION:
      Fail(std::string(what), reply.library_error);
    case AMQP_RESPONSE_SERVER_EXCEPTION:
      if (reply.reply.id == AMQP_CONNECTION_CLOSE_METHOD ||
          reply.reply.id == AMQP_CHANNEL_CLOSE_METHOD) {
        throw BrokerClosed(state, reply.reply, what);
      }
      throw AmqpError(std::string(what) + ": unexpected reply from the broker");
    case AMQP_RESPONSE_NONE:
      break;
  }
  throw AmqpError(std::string(what) + ": no reply from the broker");
}

// rabbitmq-c applies one timeout to each RPC; set it to what is left of the caller's deadline.
void SetRpcDeadline(amqp_connection_state_t state, Clock::time_point deadline) {
  const timeval left = Until(deadline);
  amqp_set_rpc_timeout(state, &left);
}

// A basic.ack or basic.nack: the same two fields.
template <typename ConfirmMethod>
AmqpInbound Confirm(AmqpInbound::Kind kind, const void* decoded) {
  const auto* method = static_cast<const ConfirmMethod*>(decoded);
  AmqpInbound inbound;
  inbound.kind = kind;
  inbound.delivery_tag = method->delivery_tag;
  inbound.multiple = method->multiple != 0;
  return inbound;
}

}  // namespace

void AmqpConnection::Destroy::operator()(amqp_connection_state_t_* state) const {
  amqp_destroy_connection(state);
}

AmqpConnection::AmqpConnection(const AmqpEndpoint& endpoint, const std::string& ca_file,
                               Clock::time_point deadline)
    : where_(HostPort(endpoint)), state_(amqp_new_connection()) {
  if (!state_) throw AmqpError("out of memory for an AMQP connection");
  amqp_connection_state_t state = state_.get();
  OpenSocket(state, endpoint, ca_file, Until(deadline), where_);

  const timeval login_timeout = Until(deadline);
  amqp_set_handshake_timeout(state, &login_timeout);
  Check(state,
        amqp_login(state, endpoint.vhost.c_str(), 0, AMQP_DEFAULT_FRAME_SIZE,
                   endpoint.heartbeat_seconds, AMQP_SASL_METHOD_PLAIN, endpoint.user.c_str(),
                   endpoint.password.c_str()),
        "login to " + where_ + " as " + Quoted(endpoint.user) + " on vhost " +
            Quoted(endpoint.vhost));

  SetRpcDeadline(state, deadline);
  amqp_channel_open(state, kChannel);
  Check(state, amqp_get_rpc_reply(state), "opening a channel on " + where_);
}

AmqpConnection::~AmqpConnection() = default;

void AmqpConnection::ConfirmSelect(Clock::time_point deadline) {
  SetRpcDeadline(state_.get(), deadline);
  amqp_confirm_select(state_.get(), kChannel);
  Check(state_.get(), amqp_get_rpc_reply(state_.get()), "confirm.select");
}

void AmqpConnection::DeclareExchange(const std::string& name, Clock::time_point deadline) {
  SetRpcDeadline(state_.get(), deadline);
  amqp_exchange_declare(state_.get(), kChannel, Bytes(name), Bytes("topic"), /*passive=*/0,
                        /*durable=*/1, /*auto_delete=*/0, /*internal=*/0, amqp_empty_table);
  Check(state_.get(), amqp_get_rpc_reply(state_.get()), "declaring exchange " + Quoted(name));
}

void AmqpConnection::DeleteExchange(const std::string& name, Clock::time_point deadline) {
  SetRpcDeadline(state_.get(), deadline);
  amqp_exchange_delete(state_.get(), kChannel, Bytes(name), /*if_unused=*/0);
  Check(state_.get(), amqp_get_rpc_reply(state_.get()), "deleting exchange " + Quoted(name));
}

std::string AmqpConnection::DeclareQueue(const std::string& name, bool durable, bool exclusive,
                                         bool auto_delete, const AmqpArguments& arguments,
                                         Clock::time_point deadline) {
  std::vector<amqp_table_entry_t> entries = TableEntries(arguments);
  const amqp_table_t table{static_cast<int>(entries.size()), entries.data()};
  SetRpcDeadline(state_.get(), deadline);
  const amqp_queue_declare_ok_t* ok = amqp_queue_declare(
      state_.get(), kChannel, Bytes(name), /*passive=*/0, durable, exclusive, auto_delete, table);
  Check(state_.get(), amqp_get_rpc_reply(state_.get()), "declaring queue " + Quoted(name));
  return Text(ok->queue);
}

void AmqpConnection::BindQueue(const std::string& queue, const std::string& exchange,
                               const std::string& binding_key, Clock::time_point deadline) {
  SetRpcDeadline(state_.get(), deadline);
  amqp_queue_bind(state_.get(), kChannel, Bytes(queue), Bytes(exchange), Bytes(binding_key),
                  amqp_empty_table);
  Check(state_.get(), amqp_get_rpc_reply(state_.get()),
        "binding queue " + Quoted(queue) + " to " + Quoted(exchange) + " with " +
            Quoted(binding_key));
}

void AmqpConnection::DeleteQueue(const std::string& name, Clock::time_point deadline) {
  SetRpcDeadline(state_.get(), deadline);
  amqp_queue_delete(state_.get(), kChannel, Bytes(name), /*if_unused=*/0, /*if_empty=*/0);
  Check(state_.get(), amqp_get_rpc_reply(state_.get()), "deleting queue " + Quoted(name));
}

std::int64_t AmqpConnection::MessageCount(const std::string& queue, Clock::time_point deadline) {
  SetRpcDeadline(state_.get(), deadline);
  const amqp_queue_declare_ok_t* ok =
      amqp_queue_declare(state_.get(), kChannel, Bytes(queue), /*passive=*/1, /*durable=*/0,
                         /*exclusive=*/0, /*auto_delete=*/0, amqp_empty_table);
  Check(state_.get(), amqp_get_rpc_reply(state_.get()),
        "counting the messages of " + Quoted(queue));
  return ok->message_count;
}

void AmqpConnection::Qos(std::uint16_t prefetch, Clock::time_point deadline) {
  SetRpcDeadline(state_.get(), deadline);
  amqp_basic_qos(state_.get(), kChannel, /*prefetch_size=*/0, prefetch, /*global=*/0);
  Check(state_.get(), amqp_get_rpc_reply(state_.get()), "basic.qos");
}

void AmqpConnection::Consume(const std::string& queue, Clock::time_point deadline, Acks acks) {
  SetRpcDeadline(state_.get(), deadline);
  amqp_basic_consume(state_.get(), kChannel, Bytes(queue), amqp_empty_bytes, /*no_local=*/0,
                     /*no_ack=*/acks == Acks::kNone ? 1 : 0, /*exclusive=*/0, amqp_empty_table);
  Check(state_.get(), amqp_get_rpc_reply(state_.get()), "consuming from " + Quoted(queue));
}

std::optional<AmqpInbound> AmqpConnection::Get(const std::string& queue,
                                               Clock::time_point deadline) {
  // Not amqp_basic_get: its RPC sets aside deliveries to a consumer that arrive before the
  // get-ok, and the get-ok's content would then be read after theirs. Here every frame is taken
  // in order, the others kept for Next().
  amqp_maybe_release_buffers(state_.get());  // as in Next()
  amqp_basic_get_t get{};
  get.queue = Bytes(queue);
  get.no_ack = 0;
  AwaitWritable(deadline);
  const int status = amqp_send_method(state_.get(), kChannel, AMQP_BASIC_GET_METHOD, &get);
  if (status != AMQP_STATUS_OK) Fail("basic.get from " + Quoted(queue), status);
  amqp_frame_t frame;
  while (NextFrame(frame, deadline)) {
    if (frame.frame_type != AMQP_FRAME_METHOD) continue;
    if (frame.payload.method.id == AMQP_BASIC_GET_EMPTY_METHOD) return std::nullopt;
    if (frame.payload.method.id == AMQP_BASIC_GET_OK_METHOD) {
      const auto* ok = static_cast<const amqp_basic_get_ok_t*>(frame.payload.method.decoded);
      AmqpInbound inbound;
      inbound.kind = AmqpInbound::Kind::kDeliver;
      inbound.delivery_tag = ok->delivery_tag;
      inbound.redelivered = ok->redelivered != 0;
      inbound.message.routing_key = Text(ok->routing_key);
      ReadContent(inbound.message, deadline);
      return inbound;
    }
    if (auto other = Decode(frame, deadline)) pending_.push_back(std::move(*other));
  }
  throw AmqpError("timed out: basic.get from " + Quoted(queue) + " on " + where_ +
                  " was not answered");
}

void AmqpConnection::Ack(std::uint64_t delivery_tag, Clock::time_point deadline) {
  AwaitWritable(deadline);
  const int status = amqp_basic_ack(state_.get(), kChannel, delivery_tag, /*multiple=*/0);
  if (status != AMQP_STATUS_OK) Fail("basic.ack on " + where_, status);
}

void AmqpConnection::Reject(std::uint64_t delivery_tag, bool requeue, Clock::time_point deadline) {
  AwaitWritable(deadline);
  const int status = amqp_basic_reject(state_.get(), kChannel, delivery_tag, requeue ? 1 : 0);
  if (status != AMQP_STATUS_OK) Fail("basic.reject on " + where_, status);
}

void AmqpConnection::Publish(const std::string& exchange, const AmqpMessage& message,
                             bool mandatory, Clock::time_point deadline) {
  amqp_basic_properties_t properties{};
  const auto set_text = [&](amqp_flags_t flag, amqp_bytes_t& field, const std::string& value) {
    if (value.empty()) return;
    properties._flags |= flag;
    field = Bytes(value);
  };
  set_text(AMQP_BASIC_CONTENT_TYPE_FLAG, properties.content_type, message.content_type);
  set_text(AMQP_BASIC_MESSAGE_ID_FLAG, properties.message_id, message.message_id);
  set_text(AMQP_BASIC_TYPE_FLAG, properties.type, message.type);
  if (message.delivery_mode != 0) {
    properties._flags |= AMQP_BASIC_DELIVERY_MODE_FLAG;
    properties.delivery_mode = message.delivery_mode;
  }
  if (message.timestamp != 0) {
    properties._flags |= AMQP_BASIC_TIMESTAMP_FLAG;
    properties.timestamp = message.timestamp;
  }
  set_text(AMQP_BASIC_EXPIRATION_FLAG, properties.expiration, message.expiration);
  std::vector<amqp_table_entry_t> headers = TableEntries(message.headers);
  if (!headers.empty()) {
    properties._flags |= AMQP_BASIC_HEADERS_FLAG;
    properties.headers = amqp_table_t{static_cast<int>(headers.size()), headers.data()};
  }
  AwaitWritable(deadline);
  const int status =
      amqp_basic_publish(state_.get(), kChannel, Bytes(exchange), Bytes(message.routing_key),
                         mandatory ? 1 : 0, /*immediate=*/0, &properties, Bytes(message.body));
  if (status != AMQP_STATUS_OK) Fail("publishing to " + where_, status);
}

std::optional<AmqpInbound> AmqpConnection::Next(Clock::time_point deadline,
                                                Clock::time_point content_deadline) {
  if (!pending_.empty()) {
    AmqpInbound inbound = std::move(pending_.front());
    pending_.pop_front();
    return inbound;
  }
  // Frames returned earlier live in the connection's pools until released; all of them were
  // copied out by now (rabbitmq-c keeps the pools of frames it set aside itself).
  amqp_maybe_release_buffers(state_.get());
  content_deadline = std::max(deadline, content_deadline);
  amqp_frame_t frame;
  while (NextFrame(frame, deadline)) {
    if (frame.frame_type != AMQP_FRAME_METHOD) continue;
    if (auto inbound = Decode(frame, content_deadline)) return inbound;
  }
  return std::nullopt;
}

std::optional<AmqpInbound> AmqpConnection::Decode(const amqp_frame_t& frame,
                                                  Clock::time_point content_deadline) {
  const void* decoded = frame.payload.method.decoded;
  AmqpInbound inbound;
  switch (frame.payload.method.id) {
    case AMQP_BASIC_ACK_METHOD:
      return Confirm<amqp_basic_ack_t>(AmqpInbound::Kind::kAck, decoded);
    case AMQP_BASIC_NACK_METHOD:
      return Confirm<amqp_basic_nack_t>(AmqpInbound::Kind::kNack, decoded);
    case AMQP_BASIC_RETURN_METHOD: {
      const auto* returned = static_cast<const amqp_basic_return_t*>(decoded);
      inbound.kind = AmqpInbound::Kind::kReturn;
      inbound.reply = std::to_string(returned->reply_code) + " " + Text(returned->reply_text);
      inbound.message.routing_key = Text(returned->routing_key);
      ReadContent(inbound.message, content_deadline);
      return inbound;
    }
    case AMQP_BASIC_DELIVER_METHOD: {
      const auto* deliver = static_cast<const amqp_basic_deliver_t*>(decoded);
      inbound.kind = AmqpInbound::Kind::kDeliver;
      inbound.delivery_tag = deliver->delivery_tag;
      inbound.redelivered = deliver->redelivered != 0;
      inbound.message.routing_key = Text(deliver->routing_key);
      ReadContent(inbound.message, content_deadline);
      return inbound;
    }
    case AMQP_CONNECTION_BLOCKED_METHOD:
      inbound.kind = AmqpInbound::Kind::kBlocked;
      inbound.reply = Text(static_cast<const amqp_connection_blocked_t*>(decoded)->reason);
      return inbound;
    case AMQP_CONNECTION_UNBLOCKED_METHOD:
      inbound.kind = AmqpInbound::Kind::kUnblocked;
      return inbound;
    default:
      return std::nullopt;  // nothing docgate asked for (basic.cancel of a deleted queue, ...)
  }
}

void AmqpConnection::Close(Clock::time_point deadline) noexcept {
  SetRpcDeadline(state_.get(), deadline);
  amqp_connection_close(state_.get(), AMQP_REPLY_SUCCESS);
}

bool AmqpConnection::NextFrame(amqp_frame_t& frame, Clock::time_point deadline) {
  const timeval timeout = Until(deadline);
  const int status = amqp_simple_wait_frame_noblock(state_.get(), &frame, &timeout);
  if (status == AMQP_STATUS_TIMEOUT) return false;
  if (status != AMQP_STATUS_OK) Fail("reading from " + where_, status);
  if (frame.frame_type == AMQP_FRAME_METHOD &&
      (frame.payload.method.id == AMQP_CONNECTION_CLOSE_METHOD ||
       frame.payload.method.id == AMQP_CHANNEL_CLOSE_METHOD)) {
    throw BrokerClosed(state_.get(), frame.payload.method, where_);
  }
  return true;
}

void AmqpConnection::ReadContent(AmqpMessage& message, Clock::time_point deadline) {
  const auto next_on_channel = [&](amqp_frame_t& frame) {
    do {
      if (!NextFrame(frame, deadline)) {
        throw AmqpError("timed out reading a message's content from " + where_);
      }
    } while (frame.channel != kChannel);
  };
  amqp_frame_t frame;
  next_on_channel(frame);
  if (frame.frame_type != AMQP_FRAME_HEADER) {
    throw AmqpError("protocol error from " + where_ + ": a message without its content header");
  }
  CopyProperties(*static_cast<const amqp_basic_properties_t*>(frame.payload.properties.decoded),
                 message);
  const std::uint64_t size = frame.payload.properties.body_size;
  message.body.reserve(size);
  while (message.body.size() < size) {
    next_on_channel(frame);
    if (frame.frame_type != AMQP_FRAME_BODY) {
      throw AmqpError("protocol error from " + where_ + ": a message cut short");
    }
    message.body += Text(frame.payload.body_fragment);
  }
}

void AmqpConnection::AwaitWritable(Clock::time_point deadline) {
  // rabbitmq-c writes without a deadline; a broker that stopped reading (a resource alarm) would
  // hold a publish forever. A socket that polls writable has room for a whole event message.
  pollfd socket{amqp_get_sockfd(state_.get()), POLLOUT, 0};
  if (socket.fd < 0) throw AmqpError("the connection to " + where_ + " is closed");
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    const int ready = ::poll(&socket, 1, static_cast<int>(std::max<std::int64_t>(left.count(), 0)));
    if (ready > 0) return;  // writable, or an error the publish itself will report
    if (ready == 0) throw AmqpError("timed out: " + where_ + " takes no more data");
    if (errno != EINTR) throw AmqpError("poll failed on the connection to " + where_);
  }
}

}  // namespace docgate
