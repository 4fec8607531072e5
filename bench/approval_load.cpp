// The approval-path load driver, in two phases so that bench/run.sh can put the database into the
// same state as for pgbench (VACUUM ANALYZE, CHECKPOINT) between them:
//
//   approval_load prepare --port P --author-token T --documents N --clients C --out FILE
//       creates N documents and submits each (C concurrent clients), writes the N review ids to
//       FILE, one a line.
//   approval_load approve --port P --reviewer-token T --reviews FILE --clients C
//       approves every review of FILE once (each request a distinct review) with C concurrent
//       clients, each on its own keep-alive connection, and prints one JSON line: throughput,
//       latency percentiles, and this process's CPU time. With --rate R the approvals are paced:
//       the i-th is sent at i / R seconds from the start (an open loop; a client that falls behind
//       sends at once, and the answer's latency counts from the planned time), else as fast as
//       the clients go.
//
// Connections are opened before the clock starts (pgbench's tps also leaves connection set-up
// out), and the clock stops when the last response has arrived. Any failure - a refused
// connection, a timeout, a status other than the expected one - is counted, the first few are
// printed to stderr, and the exit status is non-zero.

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "e2e/http_client.h"

namespace {

using docgate::e2e::Headers;
using docgate::e2e::HttpClient;
using nlohmann::json;
namespace http = boost::beast::http;
using Clock = std::chrono::steady_clock;

struct Options {
  std::string phase;
  std::uint16_t port = 0;
  std::string author_token;
  std::string reviewer_token;
  int documents = 0;
  int clients = 32;
  std::string out;
  std::string reviews;
  int rate = 0;  // approvals a second; 0: as fast as the clients go
};

[[noreturn]] void Usage(const std::string& why) {
  throw std::invalid_argument(
      why +
      "\nusage: approval_load prepare --port P --author-token T --documents N [--clients C] "
      "--out FILE\n       approval_load approve --port P --reviewer-token T --reviews FILE "
      "[--clients C] [--rate R]");
}

int Positive(std::string_view flag, const std::string& value) {
  std::size_t used = 0;
  int n = 0;
  try {
    n = std::stoi(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != value.size() || n < 1) Usage(std::string(flag) + " must be a positive integer");
  return n;
}

Options Parse(int argc, char** argv) {
  Options o;
  if (argc < 2) Usage("missing phase");
  o.phase = argv[1];
  if (o.phase != "prepare" && o.phase != "approve") Usage("unknown phase " + o.phase);
  for (int i = 2; i < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc) Usage("missing value for " + std::string(flag));
    const std::string value = argv[i + 1];
    if (flag == "--port") o.port = static_cast<std::uint16_t>(Positive(flag, value));
    else if (flag == "--author-token") o.author_token = value;
    else if (flag == "--reviewer-token") o.reviewer_token = value;
    else if (flag == "--documents") o.documents = Positive(flag, value);
    else if (flag == "--clients") o.clients = Positive(flag, value);
    else if (flag == "--out") o.out = value;
    else if (flag == "--reviews") o.reviews = value;
    else if (flag == "--rate")
      o.rate = Positive(flag, value);
    else Usage("unknown flag " + std::string(flag));
  }
  if (o.port == 0) Usage("--port is required");
  if (o.phase == "prepare" && (o.author_token.empty() || o.documents == 0 || o.out.empty())) {
    Usage("prepare needs --author-token, --documents and --out");
  }
  if (o.phase == "approve" && (o.reviewer_token.empty() || o.reviews.empty())) {
    Usage("approve needs --reviewer-token and --reviews");
  }
  return o;
}

// Failures of any client thread, counted; the first few are kept for the report.
class Failures {
 public:
  void Add(const std::string& what) {
    std::lock_guard lock(mutex_);
    if (++count_ <= 5) std::cerr << "approval_load: " << what << "\n";
  }
  int count() const {
    std::lock_guard lock(mutex_);
    return count_;
  }

 private:
  mutable std::mutex mutex_;
  int count_ = 0;
};

// Runs `work(client, i, planned)` for every i in [0, n) on `clients` threads, each with its own
// keep-alive connection, handing out i in order from a shared counter; `planned` is when request i
// is due (with o.rate: i / rate seconds from the start, waited for; else now). All connections are
// open before the first request; returns the seconds from the first request until the last
// response.
template <typename Work>
double Parallel(const Options& o, int n, Failures& failures, Work&& work) {
  std::atomic<int> next{0};
  std::optional<Clock::time_point> start;
  std::barrier ready(o.clients, [&start]() noexcept { start = Clock::now(); });
  std::vector<std::thread> threads;
  for (int c = 0; c < o.clients; ++c) {
    threads.emplace_back([&] {
      std::optional<HttpClient> client;
      try {
        client.emplace(o.port);
      } catch (const std::exception& e) {
        failures.Add(std::string("connect: ") + e.what());
      }
      ready.arrive_and_wait();
      if (!client) return;
      for (int i = next++; i < n; i = next++) {
        auto planned = Clock::now();
        if (o.rate > 0) {
          planned = *start + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(static_cast<double>(i) / o.rate));
          std::this_thread::sleep_until(planned);  // pacing the load, not waiting for a result
        }
        try {
          work(*client, i, planned);
        } catch (const std::exception& e) {
          failures.Add("request " + std::to_string(i) + ": " + e.what());
          return;  // the connection is in an unknown state; the other clients carry on
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  return std::chrono::duration<double>(Clock::now() - *start).count();
}

double Percentile(const std::vector<double>& sorted_ms, double p) {
  if (sorted_ms.empty()) return 0;
  // Nearest rank: the smallest value with at least p of the samples at or below it.
  const auto rank = static_cast<std::size_t>(p * static_cast<double>(sorted_ms.size()) + 0.999999);
  return sorted_ms[std::clamp<std::size_t>(rank, 1, sorted_ms.size()) - 1];
}

double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

std::string Expect(const docgate::e2e::HttpReply& reply, unsigned status, const std::string& what) {
  if (reply.status() == status) return {};
  return what + ": HTTP " + std::to_string(reply.status()) + " " + reply.body().substr(0, 300);
}

int Prepare(const Options& o) {
  const Headers author{{"Authorization", "Bearer " + o.author_token}};
  std::vector<std::string> reviews(static_cast<std::size_t>(o.documents));
  Failures failures;
  const double seconds = Parallel(o, o.documents, failures, [&](HttpClient& client, int i, auto) {
    const auto created = client.Request(
        http::verb::post, "/api/v1/documents",
        json{{"title", "bench " + std::to_string(i)}, {"content", "paragraph\n\nparagraph"}}.dump(),
        author);
    if (auto problem = Expect(created, 201, "create"); !problem.empty()) {
      return failures.Add(problem);
    }
    const std::string id = created.json().at("id");
    const auto submitted =
        client.Request(http::verb::post, "/api/v1/documents/" + id + "/submit", "", author);
    if (auto problem = Expect(submitted, 200, "submit " + id); !problem.empty()) {
      return failures.Add(problem);
    }
    reviews[static_cast<std::size_t>(i)] = submitted.json().at("review").at("id");
  });
  if (failures.count() > 0) {
    std::cerr << "approval_load: preparation failed for " << failures.count() << " document(s)\n";
    return 1;
  }
  std::ofstream out(o.out);
  for (const auto& review : reviews) out << review << "\n";
  out.close();
  if (!out) throw std::runtime_error("cannot write " + o.out);
  std::cerr << "approval_load: prepared " << o.documents << " pending reviews in " << seconds
            << " s\n";
  return 0;
}

int Approve(const Options& o) {
  std::vector<std::string> reviews;
  {
    std::ifstream in(o.reviews);
    if (!in) throw std::runtime_error("cannot read " + o.reviews);
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) reviews.push_back(line);
    }
  }
  if (reviews.empty()) throw std::runtime_error(o.reviews + " holds no review ids");
  const Headers reviewer{{"Authorization", "Bearer " + o.reviewer_token}};
  const int n = static_cast<int>(reviews.size());
  std::vector<double> latencies_ms(reviews.size(), -1);
  Failures failures;
  const double cpu_before = CpuSeconds();
  const double seconds = Parallel(o, n, failures, [&](HttpClient& client, int i, auto planned) {
    const auto& review = reviews[static_cast<std::size_t>(i)];
    const auto reply =
        client.Request(http::verb::post, "/api/v1/reviews/" + review + "/approve", "{}", reviewer);
    latencies_ms[static_cast<std::size_t>(i)] =
        std::chrono::duration<double, std::milli>(Clock::now() - planned).count();
    if (auto problem = Expect(reply, 200, "approve " + review); !problem.empty()) {
      failures.Add(problem);
    }
  });
  const double cpu = CpuSeconds() - cpu_before;
  std::erase_if(latencies_ms, [](double ms) { return ms < 0; });  // requests never answered
  std::sort(latencies_ms.begin(), latencies_ms.end());
  const int errors = failures.count();
  std::cout << json{{"approvals", n - errors},
                    {"clients", o.clients},
                    {"rate", o.rate},
                    {"errors", errors},
                    {"seconds", seconds},
                    {"approvals_per_second", (n - errors) / seconds},
                    {"p50_ms", Percentile(latencies_ms, 0.50)},
                    {"p99_ms", Percentile(latencies_ms, 0.99)},
                    {"max_ms", latencies_ms.empty() ? 0.0 : latencies_ms.back()},
                    {"driver_cpu_seconds", cpu}}
                   .dump()
            << "\n";
  return errors > 0 ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) try {
  const Options o = Parse(argc, argv);
  return o.phase == "prepare" ? Prepare(o) : Approve(o);
} catch (const std::exception& e) {
  std::cerr << "approval_load: " << e.what() << "\n";
  return 2;
}
