// The approval-path load driver: prepares N documents, each created and submitted, then approves
// all N reviews with C concurrent clients (each request a distinct review, each client one
// keep-alive connection) and prints one JSON line with throughput and latency percentiles.
//
//   approval_load --port 8080 --author-token T --reviewer-token T [--documents N] [--clients C]

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <mutex>
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
  std::uint16_t port = 8080;
  std::string author_token;
  std::string reviewer_token;
  int documents = 2000;
  int clients = 32;
};

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--port") o.port = static_cast<std::uint16_t>(std::stoi(value));
    else if (flag == "--author-token") o.author_token = value;
    else if (flag == "--reviewer-token") o.reviewer_token = value;
    else if (flag == "--documents") o.documents = std::stoi(value);
    else if (flag == "--clients") o.clients = std::stoi(value);
    else throw std::invalid_argument("unknown flag " + std::string(flag));
  }
  if (o.author_token.empty() || o.reviewer_token.empty()) {
    throw std::invalid_argument("--author-token and --reviewer-token are required");
  }
  return o;
}

// Runs `work(client, i)` for i in [0, n) on `clients` threads, each with its own connection.
template <typename Work>
void Parallel(const Options& o, int n, Work&& work) {
  std::atomic<int> next{0};
  std::vector<std::thread> threads;
  for (int c = 0; c < o.clients; ++c) {
    threads.emplace_back([&] {
      HttpClient client(o.port);
      for (int i = next++; i < n; i = next++) work(client, i);
    });
  }
  for (auto& t : threads) t.join();
}

double Percentile(std::vector<double> sorted_ms, double p) {
  if (sorted_ms.empty()) return 0;
  const auto index = static_cast<std::size_t>(p * static_cast<double>(sorted_ms.size() - 1));
  return sorted_ms[index];
}

}  // namespace

int main(int argc, char** argv) try {
  const Options o = Parse(argc, argv);
  const Headers author{{"Authorization", "Bearer " + o.author_token}};
  const Headers reviewer{{"Authorization", "Bearer " + o.reviewer_token}};

  std::vector<std::string> reviews(o.documents);
  std::atomic<int> prepare_errors{0};
  Parallel(o, o.documents, [&](HttpClient& client, int i) {
    const auto created = client.Request(
        http::verb::post, "/api/v1/documents",
        json{{"title", "bench " + std::to_string(i)}, {"content", "paragraph\n\nparagraph"}}.dump(),
        author);
    if (created.status() != 201) return void(++prepare_errors);
    const std::string id = created.json()["id"];
    const auto submitted = client.Request(http::verb::post, "/api/v1/documents/" + id + "/submit",
                                          "", author);
    if (submitted.status() != 200) return void(++prepare_errors);
    reviews[i] = submitted.json()["review"]["id"];
  });
  if (prepare_errors > 0) throw std::runtime_error("preparation failed for some documents");

  std::vector<double> latencies_ms(o.documents);
  std::atomic<int> errors{0};
  const auto start = Clock::now();
  Parallel(o, o.documents, [&](HttpClient& client, int i) {
    const auto t0 = Clock::now();
    const auto reply = client.Request(http::verb::post, "/api/v1/reviews/" + reviews[i] + "/approve",
                                      "{}", reviewer);
    latencies_ms[i] = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (reply.status() != 200) ++errors;
  });
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();

  std::sort(latencies_ms.begin(), latencies_ms.end());
  std::cout << json{{"approvals", o.documents},
                    {"clients", o.clients},
                    {"errors", errors.load()},
                    {"seconds", seconds},
                    {"approvals_per_second", o.documents / seconds},
                    {"p50_ms", Percentile(latencies_ms, 0.50)},
                    {"p99_ms", Percentile(latencies_ms, 0.99)}}
                   .dump()
            << "\n";
  return errors > 0 ? 1 : 0;
} catch (const std::exception& e) {
  std::cerr << "approval_load: " << e.what() << "\n";
  return 2;
}
