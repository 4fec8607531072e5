// Issue 12: how soon the events a killed `docgate serve` had claimed are published again
// (bench/failover.sh; results in docs/benchmarks.md).
//
// Each run, on a database of its own (DOCGATE_TEST_PG_URL's server) and an exchange of its own
// (DOCGATE_TEST_AMQP_URL's broker): a `docgate serve` (the binary given) publishes through a proxy;
// the proxy stalls (holds every byte), BENCH_EVENTS outbox events are committed in one transaction,
// and the relay claims them all in one batch whose confirms never come. After a random pause of
// 0..BENCH_PHASE_MS (so that the kill lands anywhere in the relay's renewal cycle) the process is
// killed with SIGKILL, and
//   restart:  the same process is started again at once, straight to the broker;
//   survivor: a second instance, started (and ready) before the kill, goes on running.
// Measured from the SIGKILL: when the first and the last of the killed batch's events were
// published again (delivered_at, the relay's mark after the broker's confirm, on this host's
// clock), and for a restart when the new process answered /readyz. Prints one line per run and
// the p50 per mode.
//
//   failover_bench DOCGATE_BINARY [MODE...]   (modes: restart survivor; default both)
//   BENCH_RUNS      runs per mode (default 7)
//   BENCH_EVENTS    events of the killed batch (default 50; at most the batch size, 100)
//   BENCH_PHASE_MS  longest random pause between the claim and the kill (default 2000)
//   BENCH_CLAIM_TTL_MS  sets DOCGATE_OUTBOX_CLAIM_TTL_MS (default: docgate's default)

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "e2e/docgate_process.h"
#include "support/pg_test_database.h"
#include "support/tcp_proxy.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;

int EnvInt(const char* name, int fallback) {
  const char* value = std::getenv(name);
  return value == nullptr || *value == '\0' ? fallback : std::atoi(value);
}

std::int64_t NowMs() {
  return std::chrono::duration_cast<milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

struct Run {
  std::int64_t first_ms = 0;  // SIGKILL -> first event of the killed batch published again
  std::int64_t last_ms = 0;   // SIGKILL -> last one
  std::optional<std::int64_t> ready_ms;  // SIGKILL -> the restarted process ready
};

class Failover {
 public:
  Failover(std::string binary, std::string mode, int events)
      : binary_(std::move(binary)), mode_(std::move(mode)), events_(events) {}

  Run Once(milliseconds pause) {
    PgTestDatabase db;
    TcpProxy proxy(PortOfUrl(amqp_url_));
    const std::string exchange = "docgate.bench.failover." + e2e::UniquePrefix();
    const auto env = [&](std::uint16_t port, bool through_proxy) {
      std::map<std::string, std::string> env = {
          {"DOCGATE_LISTEN", "127.0.0.1:" + std::to_string(port)},
          {"DOCGATE_DATABASE_URL", db.url()},
          {"DOCGATE_JWT_SECRET", "failover-bench-secret"},
          {"DOCGATE_AMQP_URL",
           through_proxy ? WithHostPort(amqp_url_, "127.0.0.1:" + std::to_string(proxy.port()))
                         : amqp_url_},
          {"DOCGATE_AMQP_EXCHANGE", exchange},
          {"DOCGATE_AMQP_QUEUE", exchange + ".consumers"},
          {"DOCGATE_CONSUMERS", "off"},
          {"DOCGATE_LOG_LEVEL", "error"}};
      if (const char* ttl = std::getenv("BENCH_CLAIM_TTL_MS"))
        env["DOCGATE_OUTBOX_CLAIM_TTL_MS"] = ttl;
      return env;
    };
    const std::uint16_t port = e2e::FreePort();
    auto holder = std::make_unique<e2e::DocgateProcess>(binary_, env(port, true));
    Require(e2e::ReadyWithin(port, 30s), "docgate did not get ready");
    proxy.Hold();
    db.Execute(
        "INSERT INTO kh_outbox (event_id, event_type, document_id, review_id, version, actor_id,"
        " occurred_at) SELECT 'bench-' || n, 'document.approved', n, n, 1, 'bench', 0"
        " FROM generate_series(1, " +
        std::to_string(events_) + ") AS n");
    const auto claimed = [&] {
      return db.Count(
                 "SELECT count(*) FROM kh_outbox WHERE claimed_by IS NOT NULL"
                 " AND delivered_at IS NULL") == events_;
    };
    Require(e2e::Within(30s, claimed), "the relay did not claim the batch");
    std::unique_ptr<e2e::DocgateProcess> survivor;
    if (mode_ == "survivor") {
      const std::uint16_t survivor_port = e2e::FreePort();
      survivor = std::make_unique<e2e::DocgateProcess>(binary_, env(survivor_port, false));
      Require(e2e::ReadyWithin(survivor_port, 30s), "the survivor did not get ready");
    }
    std::this_thread::sleep_for(pause);
    Require(claimed(), "the batch was not held until the kill");
    const std::int64_t killed_at = NowMs();
    holder->Kill();
    Run run;
    if (mode_ == "restart") {
      holder = std::make_unique<e2e::DocgateProcess>(binary_, env(port, false));
      Require(e2e::ReadyWithin(port, 60s), "the restarted docgate did not get ready");
      run.ready_ms = NowMs() - killed_at;
    }
    const auto all_delivered = [&] {
      return db.Count("SELECT count(*) FROM kh_outbox WHERE delivered_at IS NULL") == 0;
    };
    Require(e2e::Within(120s, all_delivered),
            "the killed batch was not published again within 120 s");
    run.first_ms = db.Count("SELECT min(delivered_at) FROM kh_outbox") - killed_at;
    run.last_ms = db.Count("SELECT max(delivered_at) FROM kh_outbox") - killed_at;
    return run;
  }

 private:
  static void Require(bool ok, const char* what) {
    if (!ok) throw std::runtime_error(what);
  }

  const std::string binary_;
  const std::string mode_;
  const int events_;
  const std::string amqp_url_ = e2e::RequiredEnv("DOCGATE_TEST_AMQP_URL");
};

std::int64_t Median(std::vector<std::int64_t> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace
}  // namespace docgate

int main(int argc, char** argv) {
  using namespace docgate;
  if (argc < 2) {
    std::fprintf(stderr, "usage: failover_bench DOCGATE_BINARY [restart|survivor]...\n");
    return 2;
  }
  std::vector<std::string> modes(argv + 2, argv + argc);
  if (modes.empty()) modes = {"restart", "survivor"};
  const int runs = EnvInt("BENCH_RUNS", 7);
  const int events = EnvInt("BENCH_EVENTS", 50);
  const int phase = EnvInt("BENCH_PHASE_MS", 2000);
  std::mt19937 random(std::random_device{}());
  std::uniform_int_distribution<int> pause(0, phase);
  try {
    for (const std::string& mode : modes) {
      if (mode != "restart" && mode != "survivor") throw std::runtime_error("unknown mode " + mode);
      Failover failover(argv[1], mode, events);
      std::vector<std::int64_t> first, last, ready;
      for (int i = 1; i <= runs; ++i) {
        const int paused = pause(random);
        const Run run = failover.Once(milliseconds(paused));
        first.push_back(run.first_ms);
        last.push_back(run.last_ms);
        if (run.ready_ms) ready.push_back(*run.ready_ms);
        std::printf("%-8s run %d: killed %4d ms after the claim; first %5lld ms, last %5lld ms",
                    mode.c_str(), i, paused, static_cast<long long>(run.first_ms),
                    static_cast<long long>(run.last_ms));
        if (run.ready_ms)
          std::printf(", restarted process ready %5lld ms", static_cast<long long>(*run.ready_ms));
        std::printf("\n");
        std::fflush(stdout);
      }
      std::printf("%-8s p50 over %d runs of %d events: first %lld ms, last %lld ms", mode.c_str(),
                  runs, events, static_cast<long long>(Median(first)),
                  static_cast<long long>(Median(last)));
      if (!ready.empty()) std::printf(", ready %lld ms", static_cast<long long>(Median(ready)));
      std::printf(" (target: 5000 ms)\n");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "failover_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
