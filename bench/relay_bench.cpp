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
//
// The parts: relay_bench.h (shared), relay_throughput.cpp, relay_latency.cpp.

#include "relay_bench.h"

namespace relay_bench {

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

double Percentile(std::vector<double> samples, double p) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  const auto rank = static_cast<std::size_t>(p * static_cast<double>(samples.size()) + 0.999999);
  return samples[std::clamp<std::size_t>(rank, 1, samples.size()) - 1];
}

double Median(std::vector<double> samples) { return Percentile(std::move(samples), 0.5); }

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

}  // namespace relay_bench

namespace {

using relay_bench::Die;

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
  if (mode == "throughput") return relay_bench::Throughput(events, batches, rounds);
  if (mode == "latency") return relay_bench::Latency(documents, rate, threads);
  Die("unknown mode " + mode + "\n" + usage);
} catch (const std::exception& e) {
  Die(e.what());
}
