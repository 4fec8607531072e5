// The outbox relay to RabbitMQ (issue 5), on the servers of DOCGATE_TEST_PG_URL and
// DOCGATE_TEST_AMQP_URL (bench/relay.sh starts both).
//
//   relay_bench throughput [--events N] [--batch B[,B...]] [--rounds R]
//       A backlog of N outbox events (one per document, so each is its document's head), drained
//       by OutboxRelay::RunOnce with batch_size B into an AmqpEventSink (publisher confirms), and
//       in the same run, the floor: one plain rabbitmq-c loop publishing the same N messages (same
//       bodies and properties, mandatory, confirms) in batches of B, waiting for every ack of a
//       batch before the next. Two more sides split the relay's cost: "store" (the same relay with
//       a sink that confirms everything at once: claim + mark on PostgreSQL only) and "sink"
//       (AmqpEventSink::Deliver over the same events in batches of B: no database). Each round runs
//       the four sides in turn, the order reversed every other round; each relay or store side
//       gets a fresh database. The relay and store sides also time RunOnce's calls to
//       ClaimPending, Deliver and MarkDelivered (pass-through decorators). Prints events/s per
//       side and round, the median ratio relay/floor (per-round pairs) and one BENCH_RESULT line.
//   relay_bench latency [--documents M] [--rate A] [--threads T]
//       A real docgate (runtime/application.h, in this process: PostgreSQL, RabbitMQ, HTTP on a
//       free port) with M documents created and submitted over HTTP; once their events are
//       published, a queue of its own bound to `document.approved`, then the M approvals at a
//       steady A per second (open loop: T threads, each request at its scheduled time, keep-alive
//       connections). For every document.approved message received: receive time - occurred_at
//       (stamped by docgate's clock just before the commit, same host clock); prints p50/p90/p99/
//       max, the achieved rate, HTTP latency, one event's publish + confirm on its own (200
//       samples before the approvals, for context) and one BENCH_RESULT JSON line. Fails unless
//       every approval's event arrived exactly once.
//
// CPU accounting (optional): with BENCH_PG_PID (the postmaster) and BENCH_RMQ_PID (the RabbitMQ
// node) set, each throughput side also reports the CPU time PostgreSQL (postmaster + children),
// RabbitMQ, this process and everything else on the machine spent on it.

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
#include "app/clock.h"
#include "e2e/http_client.h"
#include "runtime/application.h"
#include "support/amqp_test_queue.h"
#include "support/pg_test_database.h"
#include "worker/outbox_relay.h"

namespace {

using docgate::OutboxEvent;
using Steady = std::chrono::steady_clock;
using std::chrono::milliseconds;
namespace http = boost::beast::http;

[[noreturn]] void Die(const std::string& why) {
  std::fprintf(stderr, "relay_bench: %s\n", why.c_str());
  std::exit(1);
}

std::string RequiredEnv(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') Die(std::string(name) + " is not set (bench/relay.sh)");
  return value;
}

double Seconds(Steady::duration d) { return std::chrono::duration<double>(d).count(); }

// Nearest rank: the smallest sample with at least p of the samples at or below it.
double Percentile(std::vector<double> samples, double p) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  const auto rank = static_cast<std::size_t>(p * static_cast<double>(samples.size()) + 0.999999);
  return samples[std::clamp<std::size_t>(rank, 1, samples.size()) - 1];
}

double Median(std::vector<double> samples) { return Percentile(std::move(samples), 0.5); }

// ---- CPU accounting ---------------------------------------------------------------------------

// Fields 14.. of /proc/PID/stat (utime, stime, cutime, cstime) and field 4 (ppid), in ticks.
struct ProcStat {
  long ppid = 0;
  long long utime = 0, stime = 0, cutime = 0, cstime = 0;
};

std::optional<ProcStat> ReadProcStat(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/stat");
  std::string line;
  if (!std::getline(in, line)) return std::nullopt;
  const auto close = line.rfind(')');  // the command name may hold spaces and parentheses
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(line.substr(close + 2));
  std::vector<std::string> f{std::istream_iterator<std::string>(fields), {}};
  if (f.size() < 15) return std::nullopt;  // f[0] is field 3 (state)
  return ProcStat{std::stol(f[1]), std::stoll(f[11]), std::stoll(f[12]), std::stoll(f[13]),
                  std::stoll(f[14])};
}

// CPU seconds used so far by this process, the PostgreSQL cluster, the RabbitMQ node and the whole
// machine (busy time of all CPUs).
struct CpuSample {
  double self = 0, pg = 0, rmq = 0, machine = 0;
};

class CpuProbe {
 public:
  CpuProbe() {
    if (const char* pid = std::getenv("BENCH_PG_PID")) pg_pid_ = pid;
    if (const char* pid = std::getenv("BENCH_RMQ_PID")) rmq_pid_ = pid;
  }
  bool enabled() const { return !pg_pid_.empty() && !rmq_pid_.empty(); }

  CpuSample Sample() const {
    CpuSample s;
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto secs = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
    s.self = secs(usage.ru_utime) + secs(usage.ru_stime);
    if (!enabled()) return s;
    // The postmaster, the children it has reaped (backends of closed connections) and its live
    // children (the store's backends, autovacuum, the checkpointer, ...).
    long long pg = 0;
    if (const auto master = ReadProcStat(pg_pid_)) {
      pg = master->utime + master->stime + master->cutime + master->cstime;
    }
    const long master_pid = std::stol(pg_pid_);
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
      const std::string name = entry.path().filename();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      if (const auto child = ReadProcStat(name); child && child->ppid == master_pid) {
        pg += child->utime + child->stime;
      }
    }
    s.pg = static_cast<double>(pg) / ticks_;
    if (const auto rmq = ReadProcStat(rmq_pid_)) {
      s.rmq = static_cast<double>(rmq->utime + rmq->stime) / ticks_;
    }
    std::ifstream stat("/proc/stat");
    std::string cpu;
    long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
    s.machine = static_cast<double>(user + nice + system + irq + softirq + steal) / ticks_;
    return s;
  }

 private:
  std::string pg_pid_, rmq_pid_;
  double ticks_ = static_cast<double>(sysconf(_SC_CLK_TCK));
};

CpuSample operator-(const CpuSample& a, const CpuSample& b) {
  return {a.self - b.self, a.pg - b.pg, a.rmq - b.rmq, a.machine - b.machine};
}

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

// What the floor publishes for one event: what AmqpEventSink puts on the wire for it.
struct FloorMessage {
  std::string routing_key;  // = type
  std::string message_id;   // = event_id
  std::uint64_t timestamp;  // occurred_at, seconds
  std::string body;         // EncodeEventBody
};

std::vector<FloorMessage> FloorMessages(const std::vector<OutboxEvent>& events) {
  std::vector<FloorMessage> messages;
  messages.reserve(events.size());
  for (const auto& e : events) {
    const auto seconds = std::chrono::floor<std::chrono::seconds>(e.occurred_at);
    messages.push_back({std::string(docgate::ToString(e.type)), e.event_id,
                        static_cast<std::uint64_t>(seconds.time_since_epoch().count()),
                        docgate::EncodeEventBody(e)});
  }
  return messages;
}

// Publishes `messages` in batches of `batch`, each persistent and mandatory with confirms, and
// waits for every ack of a batch before publishing the next. Dies on a nack, a return or a
// 10 s silence.
void PublishFloor(RawAmqp& amqp, const std::string& exchange,
                  const std::vector<FloorMessage>& messages, int batch) {
  amqp_connection_state_t state = amqp.state();
  const amqp_bytes_t content_type = amqp_cstring_bytes("application/json");
  std::uint64_t next_tag = 1;
  for (std::size_t start = 0; start < messages.size(); start += batch) {
    const std::size_t end = std::min(messages.size(), start + static_cast<std::size_t>(batch));
    const std::uint64_t first_tag = next_tag;
    for (std::size_t i = start; i < end; ++i, ++next_tag) {
      const FloorMessage& m = messages[i];
      amqp_basic_properties_t props{};
      props._flags = AMQP_BASIC_CONTENT_TYPE_FLAG | AMQP_BASIC_DELIVERY_MODE_FLAG |
                     AMQP_BASIC_MESSAGE_ID_FLAG | AMQP_BASIC_TYPE_FLAG | AMQP_BASIC_TIMESTAMP_FLAG;
      props.content_type = content_type;
      props.delivery_mode = 2;
      props.message_id = amqp_bytes_t{m.message_id.size(), const_cast<char*>(m.message_id.data())};
      props.type = amqp_bytes_t{m.routing_key.size(), const_cast<char*>(m.routing_key.data())};
      props.timestamp = m.timestamp;
      const int status = amqp_basic_publish(
          state, RawAmqp::kChannel, amqp_cstring_bytes(exchange.c_str()),
          amqp_bytes_t{m.routing_key.size(), const_cast<char*>(m.routing_key.data())},
          /*mandatory=*/1, /*immediate=*/0, &props,
          amqp_bytes_t{m.body.size(), const_cast<char*>(m.body.data())});
      if (status != AMQP_STATUS_OK) Die(std::string("publish: ") + amqp_error_string2(status));
    }
    // Acks may cover several tags (multiple) and, in principle, come in any order.
    std::vector<bool> acked(end - start, false);
    std::size_t open = acked.size();
    while (open > 0) {
      amqp_maybe_release_buffers(state);
      amqp_frame_t frame;
      const timeval timeout{10, 0};
      const int status = amqp_simple_wait_frame_noblock(state, &frame, &timeout);
      if (status != AMQP_STATUS_OK)
        Die(std::string("waiting for acks: ") + amqp_error_string2(status));
      if (frame.frame_type != AMQP_FRAME_METHOD) continue;  // a return's header and body
      switch (frame.payload.method.id) {
        case AMQP_BASIC_ACK_METHOD: {
          const auto* ack = static_cast<const amqp_basic_ack_t*>(frame.payload.method.decoded);
          const std::uint64_t from = ack->multiple ? first_tag : ack->delivery_tag;
          for (std::uint64_t t = std::max(from, first_tag); t <= ack->delivery_tag && t < next_tag;
               ++t) {
            if (!acked[t - first_tag]) {
              acked[t - first_tag] = true;
              --open;
            }
          }
          break;
        }
        case AMQP_BASIC_NACK_METHOD:
          Die("the broker nacked a floor message");
        case AMQP_BASIC_RETURN_METHOD:
          Die("the broker returned a floor message (unroutable)");
        case AMQP_CHANNEL_CLOSE_METHOD:
        case AMQP_CONNECTION_CLOSE_METHOD:
          Die("the broker closed the floor's channel");
        default:
          break;
      }
    }
  }
}

// ---- Throughput ---------------------------------------------------------------------------------

// Confirms every event at once: the relay's cost without a broker.
class NoopSink final : public docgate::EventSink {
 public:
  std::vector<docgate::DeliveryOutcome> Deliver(std::span<const OutboxEvent> events) override {
    return std::vector(events.size(), docgate::DeliveryOutcome::kDelivered);
  }
};

// Where a relay's time goes, measured around the calls RunOnce makes (two clock reads a call).
struct Phases {
  Steady::duration claim{}, deliver{}, mark{};
};

template <typename Fn>
auto TimeInto(Steady::duration& total, Fn&& fn) {
  const auto start = Steady::now();
  struct Add {
    Steady::duration& total;
    Steady::time_point start;
    ~Add() { total += Steady::now() - start; }
  } add{total, start};
  return fn();
}

class TimedOutbox final : public docgate::OutboxStore {
 public:
  TimedOutbox(docgate::OutboxStore& inner, Phases& phases) : inner_(inner), phases_(phases) {}
  std::vector<OutboxEvent> ClaimPending(int limit) override {
    return TimeInto(phases_.claim, [&] { return inner_.ClaimPending(limit); });
  }
  void MarkDelivered(const std::vector<std::int64_t>& sequences, docgate::TimePoint at) override {
    TimeInto(phases_.mark, [&] { inner_.MarkDelivered(sequences, at); });
  }
  void Defer(const std::vector<std::int64_t>& sequences, milliseconds delay, milliseconds max_delay,
             std::string_view reason) override {
    inner_.Defer(sequences, delay, max_delay, reason);
  }
  void ReleaseClaims() override { inner_.ReleaseClaims(); }
  int RenewClaims() override { return inner_.RenewClaims(); }
  int PruneDelivered(docgate::TimePoint cutoff, int limit) override {
    return inner_.PruneDelivered(cutoff, limit);
  }
  docgate::OutboxBacklog Backlog() override { return inner_.Backlog(); }
  void Requeue(const OutboxEvent& event) override { inner_.Requeue(event); }
  std::vector<OutboxEvent> FindStuckIngestions(docgate::TimePoint delivered_before,
                                               int limit) override {
    return inner_.FindStuckIngestions(delivered_before, limit);
  }

 private:
  docgate::OutboxStore& inner_;
  Phases& phases_;
};

class TimedSink final : public docgate::EventSink {
 public:
  TimedSink(docgate::EventSink& inner, Phases& phases) : inner_(inner), phases_(phases) {}
  std::vector<docgate::DeliveryOutcome> Deliver(std::span<const OutboxEvent> events) override {
    return TimeInto(phases_.deliver, [&] { return inner_.Deliver(events); });
  }
  void Maintain() override { inner_.Maintain(); }

 private:
  docgate::EventSink& inner_;
  Phases& phases_;
};

// N events, one per document (each its document's head), with UUID-shaped unique ids.
std::vector<OutboxEvent> BacklogEvents(int n, int salt) {
  constexpr docgate::EventType kTypes[] = {
      docgate::EventType::kSubmitted, docgate::EventType::kApproved, docgate::EventType::kRejected,
      docgate::EventType::kWithdrawn};
  const docgate::TimePoint now = docgate::SystemClock().Now();
  std::vector<OutboxEvent> events(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    char id[40];
    std::snprintf(id, sizeof id, "%08x-%04x-4%03x-8%03x-%012x", static_cast<unsigned>(::getpid()),
                  static_cast<unsigned>(salt) & 0xffff, 0u, 0u, static_cast<unsigned>(i));
    OutboxEvent& e = events[static_cast<std::size_t>(i)];
    e.event_id = id;
    e.type = kTypes[i % 4];
    e.document_id = i + 1;
    e.review_id = i + 1;
    e.version = 1;
    e.actor_id = "bench";
    e.occurred_at = now;
  }
  return events;
}

// A fresh database holding `events` undelivered, in transactions of 500, then VACUUM ANALYZEd and
// CHECKPOINTed so that the timed phase neither pays for the inserts nor runs without statistics.
std::unique_ptr<docgate::PgTestDatabase> SeededDatabase(const std::vector<OutboxEvent>& events) {
  auto db = std::make_unique<docgate::PgTestDatabase>();
  {
    const docgate::Stores stores = docgate::OpenPgStores(db->Config());
    for (std::size_t start = 0; start < events.size(); start += 500) {
      auto tx = stores.documents->Begin();
      for (std::size_t i = start; i < std::min(events.size(), start + 500); ++i) {
        tx->AppendEvent(events[i]);
      }
      tx->Commit();
    }
  }
  db->Execute("VACUUM ANALYZE");
  db->Execute("CHECKPOINT");
  return db;
}

struct Sample {
  std::string side;
  int batch = 0;
  int round = 0;
  int events = 0;
  double seconds = 0;
  CpuSample cpu;
  std::optional<Phases> phases;  // relay and store sides
  double rate() const { return events / seconds; }
};

struct ThroughputRun {
  std::string amqp_url;
  docgate::AmqpEndpoint endpoint;
  std::string exchange;
  std::string queue;
  int events = 0;
  CpuProbe probe;
  RawAmqp* admin = nullptr;

  docgate::AmqpConfig SinkConfig() const {
    docgate::AmqpConfig config;
    config.url = amqp_url;
    config.exchange = exchange;
    config.queue = queue;
    return config;
  }

  // Times `body`, checks that the queue received every event, and empties it.
  template <typename Body>
  Sample Timed(const std::string& side, int batch, int round, bool to_broker, Body&& body) {
    const CpuSample before = probe.Sample();
    const auto start = Steady::now();
    body();
    const auto end = Steady::now();
    const CpuSample used = probe.Sample() - before;
    if (to_broker) {
      const std::uint32_t queued = admin->Purge(queue);
      if (queued != static_cast<std::uint32_t>(events)) {
        Die(side + ": the queue held " + std::to_string(queued) + " messages, not " +
            std::to_string(events));
      }
    }
    return {side, batch, round, events, Seconds(end - start), used, std::nullopt};
  }

  // A fresh backlog for one relay or store side.
  std::unique_ptr<docgate::PgTestDatabase> Backlog(int batch, int round) const {
    return SeededDatabase(BacklogEvents(events, round * 1000 + batch));
  }

  // OutboxRelay::RunOnce over the backlog in `db`, into `sink`.
  Sample Relay(const std::string& side, int batch, int round, const docgate::PgTestDatabase& db,
               docgate::EventSink& sink, bool to_broker) {
    const docgate::Stores stores = docgate::OpenPgStores(db.Config());
    docgate::OutboxStore& store = *stores.outbox;
    docgate::SystemClock clock;
    docgate::RelayConfig config;
    config.batch_size = batch;
    Phases phases;
    TimedOutbox timed_store(store, phases);
    TimedSink timed_sink(sink, phases);
    docgate::OutboxRelay relay(timed_store, timed_sink, clock, config);
    int delivered = 0;
    Sample s = Timed(side, batch, round, to_broker, [&] { delivered = relay.RunOnce(); });
    s.phases = phases;
    if (delivered != events) {
      Die(side + ": RunOnce delivered " + std::to_string(delivered) + " of " +
          std::to_string(events));
    }
    if (const auto backlog = store.Backlog(); backlog.pending != 0) {
      Die(side + ": " + std::to_string(backlog.pending) + " events still pending");
    }
    const auto& c = relay.counters();
    if (c.returned + c.nacked + c.failed + c.errors != 0)
      Die(side + ": the relay counted failures");
    return s;
  }

  Sample RelaySide(int batch, int round) {
    const auto db = Backlog(batch, round);
    docgate::AmqpEventSink sink(SinkConfig());
    if (sink.State() != "ok") Die("the event sink could not connect to " + amqp_url);
    Sample s = Relay("relay", batch, round, *db, sink, true);
    if (sink.published() != static_cast<std::uint64_t>(events)) Die("relay: sink count differs");
    return s;
  }

  Sample StoreSide(int batch, int round) {
    const auto db = Backlog(batch, round);
    NoopSink sink;
    return Relay("store", batch, round, *db, sink, false);
  }

  Sample SinkSide(int batch, int round) {
    const auto events_vec = BacklogEvents(events, round * 1000 + batch);
    docgate::AmqpEventSink sink(SinkConfig());
    if (sink.State() != "ok") Die("the event sink could not connect to " + amqp_url);
    return Timed("sink", batch, round, true, [&] {
      for (std::size_t start = 0; start < events_vec.size(); start += batch) {
        const std::size_t n = std::min<std::size_t>(batch, events_vec.size() - start);
        const auto outcomes = sink.Deliver(std::span(events_vec).subspan(start, n));
        for (const auto o : outcomes) {
          if (o != docgate::DeliveryOutcome::kDelivered) Die("sink: an event was not delivered");
        }
      }
    });
  }

  Sample FloorSide(int batch, int round) {
    const auto messages = FloorMessages(BacklogEvents(events, round * 1000 + batch));
    RawAmqp amqp(endpoint);
    amqp.ConfirmSelect();
    return Timed("floor", batch, round, true,
                 [&] { PublishFloor(amqp, exchange, messages, batch); });
  }
};

void PrintSample(const Sample& s, const CpuProbe& probe) {
  std::printf("B=%-4d round %d  %-5s %6d events in %6.3f s = %8.0f events/s", s.batch, s.round,
              s.side.c_str(), s.events, s.seconds, s.rate());
  const double per = 1000.0 / s.events * 1000.0;  // CPU ms per 1000 events
  if (probe.enabled()) {
    const double others = s.cpu.machine - s.cpu.self - s.cpu.pg - s.cpu.rmq;
    std::printf("  CPU ms/1000 events: bench %5.1f  postgres %5.1f  rabbitmq %5.1f  others %5.1f",
                s.cpu.self * per, s.cpu.pg * per, s.cpu.rmq * per, others * per);
  } else {
    std::printf("  CPU ms/1000 events: bench %5.1f", s.cpu.self * per);
  }
  if (s.phases) {
    std::printf("  [claim %.3f s, deliver %.3f s, mark %.3f s]", Seconds(s.phases->claim),
                Seconds(s.phases->deliver), Seconds(s.phases->mark));
  }
  std::printf("\n");
  std::fflush(stdout);
}

int Throughput(int events, const std::vector<int>& batches, int rounds) {
  spdlog::set_level(spdlog::level::warn);
  ThroughputRun run;
  run.amqp_url = RequiredEnv("DOCGATE_TEST_AMQP_URL");
  run.endpoint = docgate::ParseAmqpUrl(run.amqp_url, docgate::AmqpConfig{}.heartbeat_seconds);
  run.exchange = "docgate.bench." + std::to_string(::getpid());
  run.queue = run.exchange;
  run.events = events;
  RawAmqp admin(run.endpoint);
  admin.DeclareBoundQueue(run.exchange, run.queue);
  run.admin = &admin;

  std::printf("throughput: %d events a side, rounds %d, sides relay / floor / store / sink\n",
              events, rounds);
  std::string json = "{\"events\": " + std::to_string(events) + ", \"batches\": [";
  for (std::size_t b = 0; b < batches.size(); ++b) {
    const int batch = batches[b];
    std::map<std::string, std::vector<double>> rates;
    std::vector<double> ratios;
    std::vector<Sample> samples;
    for (int round = 1; round <= rounds; ++round) {
      std::vector<std::string> order = {"relay", "floor", "store", "sink"};
      if (round % 2 == 0) std::reverse(order.begin(), order.end());
      std::map<std::string, double> rate;
      for (const auto& side : order) {
        const Sample s = side == "relay"   ? run.RelaySide(batch, round)
                         : side == "floor" ? run.FloorSide(batch, round)
                         : side == "store" ? run.StoreSide(batch, round)
                                           : run.SinkSide(batch, round);
        PrintSample(s, run.probe);
        rate[side] = s.rate();
        rates[side].push_back(s.rate());
        samples.push_back(s);
      }
      ratios.push_back(rate["relay"] / rate["floor"]);
    }
    std::printf("B=%d medians (events/s): relay %.0f, floor %.0f, store %.0f, sink %.0f\n", batch,
                Median(rates["relay"]), Median(rates["floor"]), Median(rates["store"]),
                Median(rates["sink"]));
    std::printf("B=%d ratio relay/floor per round:", batch);
    for (const double r : ratios) std::printf(" %.3f", r);
    std::printf("  median %.3f (target >= 0.5)\n", Median(ratios));
    std::fflush(stdout);

    json += std::string(b ? ", " : "") + "{\"batch\": " + std::to_string(batch) +
            ", \"median_ratio\": " + std::to_string(Median(ratios)) + ", \"samples\": [";
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const Sample& s = samples[i];
      char line[600];
      std::snprintf(line, sizeof line,
                    "%s{\"side\": \"%s\", \"round\": %d, \"seconds\": %.4f, \"events_per_s\": "
                    "%.1f, \"cpu_self_s\": %.3f, \"cpu_pg_s\": %.3f, \"cpu_rmq_s\": %.3f, "
                    "\"cpu_machine_s\": %.3f, \"claim_s\": %.3f, \"deliver_s\": %.3f, "
                    "\"mark_s\": %.3f}",
                    i ? ", " : "", s.side.c_str(), s.round, s.seconds, s.rate(), s.cpu.self,
                    s.cpu.pg, s.cpu.rmq, s.cpu.machine, s.phases ? Seconds(s.phases->claim) : 0.0,
                    s.phases ? Seconds(s.phases->deliver) : 0.0,
                    s.phases ? Seconds(s.phases->mark) : 0.0);
      json += line;
    }
    json += "]}";
  }
  json += "]}";
  admin.Delete(run.exchange, run.queue);
  std::printf("BENCH_RESULT %s\n", json.c_str());
  return 0;
}

// ---- Latency ------------------------------------------------------------------------------------

// Runs `work(client, i)` for i in [0, n) on `threads` threads with keep-alive connections, i handed
// out from a shared counter; dies on any failure.
template <typename Work>
void Parallel(std::uint16_t port, int n, int threads, Work&& work) {
  std::atomic<int> next{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      docgate::e2e::HttpClient client(port);
      for (int i = next++; i < n; i = next++) work(client, i);
    });
  }
  for (auto& t : pool) t.join();
}

std::string Expect(const docgate::e2e::HttpReply& reply, unsigned status, const std::string& what) {
  if (reply.status() != status) {
    Die(what + ": HTTP " + std::to_string(reply.status()) + " " + reply.body().substr(0, 300));
  }
  return reply.body();
}

struct Received {
  std::string event_id;
  docgate::ReviewId review_id = 0;
  double latency_ms = 0;
};

int Latency(int documents, int rate, int threads) {
  const std::string amqp_url = RequiredEnv("DOCGATE_TEST_AMQP_URL");
  spdlog::set_level(spdlog::level::warn);
  docgate::PgTestDatabase db;
  const std::string exchange = "docgate.bench." + std::to_string(::getpid());
  docgate::Config config;
  config.http.address = "127.0.0.1";
  config.http.port = 0;
  config.database.url = db.url();
  config.auth.jwt_secret = "docgate-bench-secret";
  config.amqp.url = amqp_url;
  config.amqp.exchange = exchange;
  config.amqp.queue = exchange;  // docgate's own consumers' queue: makes every event routable
  docgate::Application app(config);
  app.Start();
  const std::uint16_t port = app.port();

  const auto token = [&](const std::string& sub, const std::string& role) {
    const docgate::TimePoint now = app.clock().Now();
    return docgate::e2e::Headers{
        {"Authorization",
         "Bearer " +
             docgate::SignHs256Token(
                 app.jwt_secret(), {sub, {role}, std::nullopt, now + std::chrono::hours(1)}, now)}};
  };
  const auto author = token("alice", "author");
  const auto reviewer = token("bob", "reviewer");

  // Preparation: M documents created and submitted, their submitted events published.
  std::vector<std::string> reviews(static_cast<std::size_t>(documents));
  const auto prep_start = Steady::now();
  Parallel(port, documents, 4, [&](docgate::e2e::HttpClient& client, int i) {
    const auto body = nlohmann::json{{"title", "bench " + std::to_string(i)},
                                     {"content", "paragraph\n\nparagraph"}}
                          .dump();
    const std::string id =
        nlohmann::json::parse(
            Expect(client.Request(http::verb::post, "/api/v1/documents", body, author), 201,
                   "create"))
            .at("id");
    const auto submitted = nlohmann::json::parse(
        Expect(client.Request(http::verb::post, "/api/v1/documents/" + id + "/submit", "", author),
               200, "submit " + id));
    reviews[static_cast<std::size_t>(i)] = submitted.at("review").at("id");
  });
  for (int i = 0; app.stores().outbox->Backlog().pending > 0; ++i) {
    if (i > 600) Die("the submitted events were not published within 60 s");
    std::this_thread::sleep_for(milliseconds(100));
  }
  RawAmqp admin(docgate::ParseAmqpUrl(amqp_url, 0));
  const std::uint32_t submitted = admin.Purge(exchange);
  std::printf("latency: prepared %d documents in %.1f s; %u submitted events were published\n",
              documents, Seconds(Steady::now() - prep_start), submitted);
  if (submitted != static_cast<std::uint32_t>(documents)) Die("not every submitted event arrived");

  // For context: one event published and confirmed on its own (AmqpEventSink::Deliver), 200 times,
  // 5 ms apart like the approvals: the least a relay round adds to an event's way out.
  std::vector<double> confirm_ms;
  {
    docgate::AmqpEventSink probe(config.amqp);
    for (const auto& event : BacklogEvents(200, 0xffff)) {
      const auto t0 = Steady::now();
      if (probe.Deliver(std::span(&event, 1)).front() != docgate::DeliveryOutcome::kDelivered) {
        Die("the confirm probe's event was not delivered");
      }
      confirm_ms.push_back(std::chrono::duration<double, std::milli>(Steady::now() - t0).count());
      std::this_thread::sleep_for(milliseconds(5));
    }
  }
  if (admin.Purge(exchange) != confirm_ms.size()) Die("not every probe event arrived");

  // The observer: every document.approved message, stamped on arrival.
  docgate::AmqpTestQueue queue(amqp_url, "", exchange, "document.approved");
  std::vector<Received> received;
  std::mutex received_mutex;
  std::atomic<bool> stop{false};
  std::atomic<int> received_count{0};
  std::thread observer([&] {
    while (!stop) {
      for (const auto& m : queue.Receive(1, milliseconds(100))) {
        const double now_ms = std::chrono::duration<double, std::milli>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
        const auto event = docgate::DecodeEventBody(m.body);
        if (!event || event->type != docgate::EventType::kApproved) Die("unexpected message");
        std::lock_guard lock(received_mutex);
        received.push_back(
            {event->event_id, event->review_id,
             now_ms - static_cast<double>(event->occurred_at.time_since_epoch().count())});
        ++received_count;
      }
    }
  });

  // Open loop: request j of thread t at start + (j * threads + t) / rate.
  const auto interval =
      std::chrono::duration_cast<Steady::duration>(std::chrono::duration<double>(1.0 / rate));
  const auto start = Steady::now() + milliseconds(200);
  std::vector<double> http_ms(static_cast<std::size_t>(documents), -1);
  std::vector<double> lag_ms(static_cast<std::size_t>(documents), 0);
  std::vector<Steady::time_point> sent(static_cast<std::size_t>(documents));
  std::atomic<int> failures{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < threads; ++t) {
    clients.emplace_back([&, t] {
      docgate::e2e::HttpClient client(port);
      for (int i = t; i < documents; i += threads) {
        const auto at = start + interval * i;
        std::this_thread::sleep_until(at);
        const auto t0 = Steady::now();
        const auto reply = client.Request(
            http::verb::post,
            "/api/v1/reviews/" + reviews[static_cast<std::size_t>(i)] + "/approve", "{}", reviewer);
        const auto t1 = Steady::now();
        if (reply.status() != 200) {
          if (failures++ < 5)
            std::fprintf(stderr, "approve: HTTP %u %s\n", reply.status(), reply.body().c_str());
          continue;
        }
        const auto k = static_cast<std::size_t>(i);
        sent[k] = t0;
        http_ms[k] = std::chrono::duration<double, std::milli>(t1 - t0).count();
        lag_ms[k] = std::chrono::duration<double, std::milli>(t0 - at).count();
      }
    });
  }
  for (auto& c : clients) c.join();
  const auto approvals_done = Steady::now();
  if (failures > 0) Die(std::to_string(failures.load()) + " approvals failed");
  const auto [first_sent, last_sent] = std::minmax_element(sent.begin(), sent.end());
  const double achieved = (documents - 1) / Seconds(*last_sent - *first_sent);

  // Every approval's event, then one more second for any duplicate.
  while (received_count < documents && Steady::now() - approvals_done < std::chrono::seconds(30)) {
    std::this_thread::sleep_for(milliseconds(20));
  }
  std::this_thread::sleep_for(std::chrono::seconds(1));
  stop = true;
  observer.join();
  const auto& counters = app.relay().counters();
  const std::uint64_t relay_errors = counters.errors, relay_returned = counters.returned;
  app.Stop();
  admin.Delete(exchange, exchange);

  std::set<std::string> ids;
  std::set<docgate::ReviewId> approved;
  std::vector<double> latency;
  for (const auto& r : received) {
    ids.insert(r.event_id);
    approved.insert(r.review_id);
    latency.push_back(r.latency_ms);
  }
  std::set<docgate::ReviewId> expected;
  for (const auto& r : reviews) expected.insert(std::stoll(r));
  std::printf(
      "approvals: %d at %d/s scheduled (%d threads), achieved %.1f/s; schedule lag p99 %.2f ms, "
      "max %.2f ms\n",
      documents, rate, threads, achieved, Percentile(lag_ms, 0.99),
      *std::max_element(lag_ms.begin(), lag_ms.end()));
  std::printf(
      "one event's publish + confirm alone (AmqpEventSink, 200 x): p50 %.2f ms, p99 %.2f ms\n",
      Percentile(confirm_ms, 0.5), Percentile(confirm_ms, 0.99));
  std::printf("HTTP approve latency: p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
              Percentile(http_ms, 0.5), Percentile(http_ms, 0.99),
              *std::max_element(http_ms.begin(), http_ms.end()));
  std::printf("document.approved received: %zu (distinct event ids %zu, reviews %zu of %zu)\n",
              received.size(), ids.size(), approved.size(), expected.size());
  std::printf(
      "commit-to-receive latency: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms "
      "(relay errors %llu, returned %llu)\n",
      Percentile(latency, 0.5), Percentile(latency, 0.9), Percentile(latency, 0.99),
      latency.empty() ? 0.0 : *std::max_element(latency.begin(), latency.end()),
      static_cast<unsigned long long>(relay_errors),
      static_cast<unsigned long long>(relay_returned));
  std::printf(
      "BENCH_RESULT {\"documents\": %d, \"rate\": %d, \"achieved_rate\": %.1f, \"received\": %zu, "
      "\"latency_p50_ms\": %.2f, \"latency_p90_ms\": %.2f, \"latency_p99_ms\": %.2f, "
      "\"latency_max_ms\": %.2f, \"http_p50_ms\": %.2f, \"http_p99_ms\": %.2f, "
      "\"confirm_p50_ms\": %.2f, \"confirm_p99_ms\": %.2f}\n",
      documents, rate, achieved, received.size(), Percentile(latency, 0.5),
      Percentile(latency, 0.9), Percentile(latency, 0.99),
      latency.empty() ? 0.0 : *std::max_element(latency.begin(), latency.end()),
      Percentile(http_ms, 0.5), Percentile(http_ms, 0.99), Percentile(confirm_ms, 0.5),
      Percentile(confirm_ms, 0.99));
  if (received.size() != static_cast<std::size_t>(documents) || ids.size() != received.size() ||
      approved != expected) {
    Die("not every approval's event arrived exactly once");
  }
  return 0;
}

int PositiveFlag(const std::string& flag, const char* value) {
  char* end = nullptr;
  const long n = std::strtol(value, &end, 10);
  if (*value == '\0' || *end != '\0' || n <= 0 || n > 100000000) Die("bad value for " + flag);
  return static_cast<int>(n);
}

}  // namespace

int main(int argc, char** argv) try {
  const std::string usage =
      "usage: relay_bench throughput [--events N] [--batch B[,B...]] [--rounds R]\n"
      "       relay_bench latency [--documents M] [--rate A] [--threads T]";
  if (argc < 2) Die(usage);
  const std::string mode = argv[1];
  int events = 20000, rounds = 3, documents = 4000, rate = 200, threads = 8;
  std::vector<int> batches{100};
  if ((argc - 2) % 2 != 0) Die("flags take one value each\n" + usage);
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--events")
      events = PositiveFlag(flag, argv[i + 1]);
    else if (flag == "--rounds")
      rounds = PositiveFlag(flag, argv[i + 1]);
    else if (flag == "--documents")
      documents = PositiveFlag(flag, argv[i + 1]);
    else if (flag == "--rate")
      rate = PositiveFlag(flag, argv[i + 1]);
    else if (flag == "--threads")
      threads = PositiveFlag(flag, argv[i + 1]);
    else if (flag == "--batch") {
      batches.clear();
      std::stringstream list(argv[i + 1]);
      for (std::string b; std::getline(list, b, ',');)
        batches.push_back(PositiveFlag(flag, b.c_str()));
    } else {
      Die("unknown flag " + flag + "\n" + usage);
    }
  }
  if (mode == "throughput") return Throughput(events, batches, rounds);
  if (mode == "latency") return Latency(documents, rate, threads);
  Die("unknown mode " + mode + "\n" + usage);
} catch (const std::exception& e) {
  Die(e.what());
}
