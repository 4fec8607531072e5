// relay_bench throughput: the relay, the floor (plain rabbitmq-c), and the store and sink sides
// (relay_bench.cpp says what each measures), with the optional CPU accounting.

#include "relay_bench.h"

namespace relay_bench {

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

}  // namespace relay_bench
