// Issue 19: the storm (tests/e2e/storm.h) on the production topology with one fault per run
// (bench/storm.sh; results in docs/benchmarks.md "A storm with faults").
//
// Each run, on a database of its own (DOCGATE_TEST_PG_URL's server) and an exchange of its own
// (DOCGATE_TEST_AMQP_URL's broker): BENCH_INSTANCES `docgate serve` processes (the binary given)
// behind HAProxy, the Redis gate behind Sentinel (a master, a replica and three Sentinels started
// for the run), the relay to RabbitMQ and the consumers. Instance 0 reaches PostgreSQL and
// RabbitMQ through TCP proxies of its own, so that its links can be cut alone. BENCH_CLIENTS
// clients storm for BENCH_SECONDS; a third of the way in, the fault:
//   none              nothing
//   kill-instance     SIGKILL of instance 0, started again at once
//   redis-failover    SIGKILL of the Redis master; Sentinel promotes the replica
//   pg-restart        STORM_PG_RESTART (a shell command restarting the PostgreSQL server)
//   rabbitmq-restart  `$DOCGATE_TEST_RABBITMQCTL stop_app`, a third of the storm, `start_app`
//   cut-db            instance 0's link to PostgreSQL cut for a third of the storm
//   cut-redis         instance 0's link to Redis cut for a third of the storm (instance 0 then
//                     reaches the master through a proxy, not through the Sentinels)
//   cut-broker        instance 0's link to RabbitMQ cut for a third of the storm
// Then, from the storm's end, how long until everything drained (the outbox delivered, every
// approved version ingested), and the invariants (tests/e2e/storm_invariants.h). Prints one
// Markdown table row per run.
//
//   storm_bench DOCGATE_BINARY [FAULT...]   (default: all of them)
//   BENCH_SECONDS    the storm's length (default 30)
//   BENCH_CLIENTS    clients (default 8)
//   BENCH_INSTANCES  docgate instances (default 2)
//   BENCH_DRAIN_SECONDS  how long to wait for the drain after the storm (default 180)

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "adapters/amqp/event_message.h"
#include "adapters/http/jwt_auth.h"
#include "app/system_clock.h"
#include "e2e/docgate_process.h"
#include "e2e/storm.h"
#include "e2e/storm_invariants.h"
#include "support/amqp_test_queue.h"
#include "support/haproxy.h"
#include "support/pg_test_database.h"
#include "support/redis_sentinel_group.h"
#include "support/tcp_proxy.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;
using e2e::DocgateProcess;
using e2e::FreePort;
using e2e::ReadyWithin;
using e2e::RequiredEnv;

int EnvInt(const char* name, int fallback) {
  const char* value = std::getenv(name);
  return value == nullptr || *value == '\0' ? fallback : std::atoi(value);
}

// How long a run waits for the storm to drain (BENCH_DRAIN_SECONDS).
int DrainBound() { return EnvInt("BENCH_DRAIN_SECONDS", 180); }

void Shell(const std::string& command) {
  if (std::system(command.c_str()) != 0) std::cerr << "storm_bench: `" << command << "` failed\n";
}

struct Row {
  std::string fault;
  e2e::StormTally tally;
  e2e::StormReport report;
  double drain_seconds = -1;  // -1: did not drain within the bound
};

class Run {
 public:
  Run(std::string binary, std::string fault)
      : binary_(std::move(binary)), fault_(std::move(fault)) {}

  Row Go() {
    // The bench's queue exists before docgate publishes anything, and is consumed only once the
    // storm is over: a consumer without acknowledgements that reads nothing meanwhile would have
    // the broker push every event into its socket, lost there when the broker restarts.
    ObserverQueue();
    const int instances = EnvInt("BENCH_INSTANCES", 2);
    const auto duration = std::chrono::seconds(EnvInt("BENCH_SECONDS", 30));
    std::vector<std::uint16_t> ports;
    for (int i = 0; i < instances; ++i) ports.push_back(FreePort());
    processes_.resize(ports.size());
    for (std::size_t i = 0; i < ports.size(); ++i) {
      processes_[i] = std::make_unique<DocgateProcess>(binary_, Env(i, ports[i]));
      if (!ReadyWithin(ports[i], 60s)) throw std::runtime_error("an instance did not start");
    }
    const std::uint16_t balancer_port = FreePort();
    HaproxyProcess balancer(balancer_port, ports);
    if (!ReadyWithin(balancer_port, 30s)) throw std::runtime_error("haproxy did not start");

    e2e::Storm storm(
        {.port = balancer_port,
         .clients = EnvInt("BENCH_CLIENTS", 8),
         .duration = duration,
         .token =
             [this](const std::string& s, const std::string& r) {
               return "Bearer " +
                      SignHs256Token(kSecret, TokenClaims{s, {r}, std::nullopt, clock_.Now() + 1h},
                                     clock_.Now());
             },
         .prefix = prefix_,
         .seed = 19});
    Row row{fault_, {}, {}, -1};
    row.tally = storm.Run([&] { Fault(duration, ports[0]); });

    const auto storm_end = std::chrono::steady_clock::now();
    const bool drained = e2e::Within(std::chrono::seconds(DrainBound()), [&] {
      Receive(100ms);
      return e2e::StormDrained(db_.url(), prefix_);
    });
    if (drained) {
      row.drain_seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - storm_end).count();
    } else {
      PrintWhatIsLeft();
    }
    Receive(1s);
    row.report = e2e::CheckStormInvariants(db_.url(), prefix_, row.tally, received_);
    for (std::size_t i = 0; i < std::min<std::size_t>(row.report.violations.size(), 10); ++i) {
      std::cerr << "  " << fault_ << ": " << row.report.violations[i] << "\n";
    }
    return row;
  }

 private:
  std::map<std::string, std::string> Env(std::size_t index, std::uint16_t port) {
    const bool first = index == 0;
    std::string redis = sentinels_.Url();
    if (first && fault_ == "cut-redis") {
      redis_proxy_ = std::make_unique<TcpProxy>(sentinels_.MasterPort());
      redis = "redis://127.0.0.1:" + std::to_string(redis_proxy_->port());
    }
    return {{"DOCGATE_LISTEN", "127.0.0.1:" + std::to_string(port)},
            {"DOCGATE_DATABASE_URL",
             first ? WithHostPort(db_.url(), "127.0.0.1:" + std::to_string(pg_proxy_.port()))
                   : db_.url()},
            {"DOCGATE_JWT_SECRET", kSecret},
            {"DOCGATE_REDIS_URL", redis},
            {"DOCGATE_AMQP_URL",
             first ? WithHostPort(amqp_url_, "127.0.0.1:" + std::to_string(amqp_proxy_.port()))
                   : amqp_url_},
            {"DOCGATE_AMQP_EXCHANGE", exchange_},
            {"DOCGATE_AMQP_QUEUE", exchange_ + ".consumers"},
            {"DOCGATE_LOG_LEVEL", "error"}};
  }

  // Runs on the storm's calling thread: waits a third of the storm, then does the fault.
  void Fault(std::chrono::seconds duration, std::uint16_t first_port) {
    const auto third = duration / 3;
    std::this_thread::sleep_for(third);
    if (fault_ == "kill-instance") {
      processes_[0]->Kill();
      processes_[0] = std::make_unique<DocgateProcess>(binary_, Env(0, first_port));
    } else if (fault_ == "redis-failover") {
      sentinels_.Kill(sentinels_.MasterPort());
    } else if (fault_ == "pg-restart") {
      Shell(RequiredEnv("STORM_PG_RESTART"));
    } else if (fault_ == "rabbitmq-restart") {
      const std::string ctl = RequiredEnv("DOCGATE_TEST_RABBITMQCTL");
      Shell(ctl + " stop_app >/dev/null");
      std::this_thread::sleep_for(third);
      Shell(ctl + " start_app >/dev/null");
    } else if (fault_ == "cut-db" || fault_ == "cut-broker" || fault_ == "cut-redis") {
      TcpProxy& proxy = fault_ == "cut-db"       ? pg_proxy_
                        : fault_ == "cut-broker" ? amqp_proxy_
                                                 : *redis_proxy_;
      proxy.Stop();
      std::this_thread::sleep_for(third);
      proxy.Start();
    } else if (fault_ != "none") {
      throw std::invalid_argument("unknown fault " + fault_);
    }
  }

  // Why the storm did not drain: undelivered outbox rows by type and claim, approved documents by
  // status and ingest status, inbox rows by consumer and state, and the first few documents not
  // ingested, each with its events and their inbox rows. One line per row, its columns spaced.
  void PrintWhatIsLeft() {
    const auto print = [&](const std::string& what, const std::string& sql) {
      for (const auto& r : db_.Execute(sql)) {
        std::cerr << "  " << fault_ << ": " << what;
        for (const auto& field : r) std::cerr << " " << (field.is_null() ? "-" : field.c_str());
        std::cerr << "\n";
      }
    };
    print("undelivered (type, claimed, count):",
          "SELECT event_type, claimed_by IS NOT NULL, count(*) FROM kh_outbox WHERE delivered_at "
          "IS NULL GROUP BY 1, 2");
    print("approved once (status, ingest status, count):",
          "SELECT status, ingest_status, count(*) FROM kh_document WHERE approved_version IS NOT "
          "NULL GROUP BY 1, 2");
    print("inbox (consumer, state, count):",
          "SELECT consumer, state, count(*) FROM kh_consumer_inbox GROUP BY 1, 2");
    print("not ingested (document, status, version, approved, ingest, preview, events):",
          "SELECT d.id, d.status, d.version, d.approved_version, d.ingest_status, p.version,"
          " (SELECT string_agg(o.event_type || ' v' || o.version || ' ' || o.event_id || "
          "  CASE WHEN o.delivered_at IS NULL THEN ' undelivered' ELSE '' END || ' [' || "
          "  coalesce((SELECT string_agg(i.consumer || ':' || i.state, ',') FROM "
          "  kh_consumer_inbox i WHERE i.event_id = o.event_id), 'no inbox row') || ']', "
          "  '; ' ORDER BY o.id) FROM kh_outbox o WHERE o.document_id = d.id)"
          " FROM kh_document d LEFT JOIN kh_document_preview p ON p.document_id = d.id"
          " WHERE d.approved_version IS NOT NULL AND (d.ingest_status <> 'done' OR p.version"
          " IS DISTINCT FROM d.approved_version) ORDER BY d.id LIMIT 5");
  }

  std::unique_ptr<AmqpTestQueue> ObserverQueue() const {
    return std::make_unique<AmqpTestQueue>(amqp_url_, "", exchange_, "#",
                                           AmqpTestQueue::Durable{exchange_ + ".observed"});
  }

  // What the bench's queue holds, for up to `wait`. The queue is durable, so a broker restart
  // loses nothing docgate published; a broken connection is opened again on the next call.
  // Messages are taken one at a time, so a connection breaking mid-call loses none already taken.
  void Receive(std::chrono::milliseconds wait) {
    const auto deadline = std::chrono::steady_clock::now() + wait;
    try {
      if (!queue_) queue_ = ObserverQueue();
      while (true) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        const auto messages = queue_->Receive(1, std::max(left, 0ms));
        if (messages.empty()) return;
        if (const auto event = DecodeEventBody(messages[0].body)) received_.push_back(*event);
      }
    } catch (const AmqpError& e) {
      std::cerr << "  " << fault_ << ": the bench's queue: " << e.what() << "\n";
      queue_.reset();
    }
  }

  static constexpr const char* kSecret = "storm-bench-secret";
  const std::string binary_;
  const std::string fault_;
  SystemClock clock_;
  PgTestDatabase db_;
  const std::string prefix_ = e2e::UniquePrefix();
  const std::string amqp_url_ = RequiredEnv("DOCGATE_TEST_AMQP_URL");
  const std::string exchange_ = "docgate.bench.storm." + prefix_;
  std::unique_ptr<AmqpTestQueue> queue_;
  RedisSentinelGroup sentinels_;
  TcpProxy pg_proxy_{PortOfUrl(db_.url())};
  TcpProxy amqp_proxy_{PortOfUrl(amqp_url_)};
  std::unique_ptr<TcpProxy> redis_proxy_;
  std::vector<std::unique_ptr<DocgateProcess>> processes_;  // last: killed before the rest goes
  std::vector<OutboxEvent> received_;
};

}  // namespace
}  // namespace docgate

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: storm_bench DOCGATE_BINARY [FAULT...]\n";
    return 2;
  }
  std::vector<std::string> faults(argv + 2, argv + argc);
  if (faults.empty()) {
    faults = {"none",   "kill-instance", "redis-failover", "pg-restart", "rabbitmq-restart",
              "cut-db", "cut-redis",     "cut-broker"};
  }
  std::cout << "| fault | requests | 2xx | 409 | 503 | other 5xx | no answer | violations | events "
               "| events lost | duplicate effects | drained after (s) |\n"
               "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  int failures = 0;
  for (const auto& fault : faults) {
    try {
      const docgate::Row row = docgate::Run(argv[1], fault).Go();
      std::int64_t ok = 0, conflict = 0, unavailable = 0, other_5xx = 0, none = 0;
      for (const auto& [status, count] : row.tally.by_status) {
        if (status == 0) none += count;
        if (status >= 200 && status < 300) ok += count;
        if (status == 409) conflict += count;
        if (status == 503) unavailable += count;
        if (status >= 500 && status != 503) other_5xx += count;
      }
      std::printf(
          "| %s | %lld | %lld | %lld | %lld | %lld | %lld | %zu | %lld | %lld | %lld | %s |\n",
          fault.c_str(), static_cast<long long>(row.tally.requests), static_cast<long long>(ok),
          static_cast<long long>(conflict), static_cast<long long>(unavailable),
          static_cast<long long>(other_5xx), static_cast<long long>(none),
          row.report.violations.size(), static_cast<long long>(row.report.events),
          static_cast<long long>(row.report.events_lost),
          static_cast<long long>(row.report.duplicate_effects),
          row.drain_seconds < 0 ? ("not within " + std::to_string(docgate::DrainBound())).c_str()
                                : std::to_string(row.drain_seconds).substr(0, 4).c_str());
      std::fflush(stdout);
      if (!row.report.violations.empty() || row.drain_seconds < 0) ++failures;
    } catch (const std::exception& e) {
      std::cerr << "storm_bench: " << fault << ": " << e.what() << "\n";
      ++failures;
    }
  }
  return failures == 0 ? 0 : 1;
}
