// The Redis gate's latency against its floor (issue 4): on one Redis server, in one process,
//   gate:  RedisLockGate::Acquire + Release on a distinct key per iteration (two round trips:
//          EVALSHA of the acquire script, EVALSHA of the owner-checked release script);
//   floor: two PINGs over a RedisConnection - the connection class the gate pools - so both sides
//          pay the same transport (Boost.Asio + hiredis reader/formatter, with deadlines).
// Both run in alternating blocks (gate block, floor block, ...) so machine noise hits both alike.
// Prints p50/p99 of each, the ratio of the p50s, and one BENCH_RESULT JSON line.
//
//   redis_gate_bench URL [--iterations N] [--warmup N] [--block N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "adapters/crypto/openssl_random.h"
#include "adapters/redis/redis_config.h"
#include "adapters/redis/redis_connection.h"
#include "adapters/redis/redis_lock_gate.h"
#include "adapters/redis/redis_url.h"

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void Die(const std::string& why) {
  std::fprintf(stderr, "redis_gate_bench: %s\n", why.c_str());
  std::exit(1);
}

double Percentile(std::vector<double> samples, double p) {
  std::sort(samples.begin(), samples.end());
  const auto index = static_cast<std::size_t>(p * static_cast<double>(samples.size() - 1) + 0.5);
  return samples[std::min(index, samples.size() - 1)];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) Die("usage: redis_gate_bench URL [--iterations N] [--warmup N] [--block N]");
  const std::string url = argv[1];
  long iterations = 20000, warmup = 1000, block = 500;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const long value = std::strtol(argv[i + 1], nullptr, 10);
    if (value <= 0) Die("bad value for " + flag);
    if (flag == "--iterations") iterations = value;
    else if (flag == "--warmup") warmup = value;
    else if (flag == "--block") block = value;
    else Die("unknown flag " + flag);
  }
  if ((argc - 2) % 2 != 0) Die("flags take one value each");

  try {
    docgate::OpenSslRandom random;
    docgate::RedisConfig config;
    config.url = url;
    config.pool_size = 1;  // one caller: the gate reuses a single pooled connection
    docgate::RedisLockGate gate(config, random, "bench:lock:");
    if (gate.State() != "ok") Die("the gate could not reach " + url + " (state " + gate.State() + ")");

    const docgate::RedisEndpoint endpoint = docgate::ParseRedisUrl(url);
    if (endpoint.tls) Die("this benchmark measures redis:// only");
    docgate::RedisConnection floor_connection(endpoint, nullptr, config.connect_timeout,
                                              config.command_timeout);

    const auto ttl = std::chrono::milliseconds(30000);
    long key_counter = 0;
    auto gate_once = [&] {
      const std::string key = "bench:" + std::to_string(key_counter++);
      const auto start = Clock::now();
      const docgate::Acquisition a = gate.Acquire(key, ttl);
      if (a.outcome != docgate::AcquireOutcome::kAcquired) Die("acquire did not acquire " + key);
      const docgate::ReleaseOutcome r = gate.Release(key, a.token);
      const auto end = Clock::now();
      if (r != docgate::ReleaseOutcome::kReleased) Die("release did not release " + key);
      return std::chrono::duration<double, std::micro>(end - start).count();
    };
    auto floor_once = [&] {
      const auto start = Clock::now();
      const docgate::RedisReply first = floor_connection.Command({"PING"});
      const docgate::RedisReply second = floor_connection.Command({"PING"});
      const auto end = Clock::now();
      if (first.text != "PONG" || second.text != "PONG") Die("PING did not answer PONG");
      return std::chrono::duration<double, std::micro>(end - start).count();
    };

    for (long i = 0; i < warmup; ++i) {
      gate_once();
      floor_once();
    }
    std::vector<double> gate_us, floor_us;
    gate_us.reserve(static_cast<std::size_t>(iterations));
    floor_us.reserve(static_cast<std::size_t>(iterations));
    while (static_cast<long>(gate_us.size()) < iterations) {
      const long n = std::min(block, iterations - static_cast<long>(gate_us.size()));
      for (long i = 0; i < n; ++i) gate_us.push_back(gate_once());
      for (long i = 0; i < n; ++i) floor_us.push_back(floor_once());
    }
    if (gate.failures() != 0) Die("the gate counted backend failures");

    const double g50 = Percentile(gate_us, 0.50), g99 = Percentile(gate_us, 0.99);
    const double f50 = Percentile(floor_us, 0.50), f99 = Percentile(floor_us, 0.99);
    std::printf("iterations %ld (warm-up %ld, alternating blocks of %ld)\n", iterations, warmup,
                block);
    std::printf("gate  acquire+release: p50 = %.1f us, p99 = %.1f us\n", g50, g99);
    std::printf("floor two PINGs:       p50 = %.1f us, p99 = %.1f us\n", f50, f99);
    std::printf("ratio gate/floor p50 = %.3f (target <= 1.3)\n", g50 / f50);
    std::printf(
        "BENCH_RESULT {\"gate_p50_us\": %.1f, \"gate_p99_us\": %.1f, \"floor_p50_us\": %.1f, "
        "\"floor_p99_us\": %.1f, \"gate_over_floor_p50\": %.3f, \"iterations\": %ld}\n",
        g50, g99, f50, f99, g50 / f50, iterations);
  } catch (const std::exception& e) {
    Die(e.what());
  }
  return 0;
}
