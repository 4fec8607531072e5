// Issue 17: nearest-neighbour search over embeddings (FaissVectorIndex), exact (IndexFlatIP) and
// approximate (HNSW), at the sizes given: the time to add the vectors, the search latency
// (p50/p99 of single queries, k = 10, one thread), HNSW's recall@10 against the exact answer and
// how similar its neighbours are to the query compared with the exact ones (the mean similarity
// of its ten over theirs: within a topic many neighbours are almost equally near, so recall by id
// undersells an answer whose neighbours are as good), and the memory the index takes (the
// process's resident size before and after).
//
// The vectors are synthetic but shaped like text embeddings: unit vectors around 500 topics
// (a topic's centre plus noise), so that neighbours exist as they do among real chunks; the
// queries are drawn the same way.
//
//   vector_index_bench [--sizes 10000,100000] [--dimensions 1024] [--queries 200] [--exact-only]
//                      [--blas-from 20]

#include <malloc.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <faiss/utils/distances.h>

#include "adapters/faiss/faiss_vector_index.h"

namespace docgate {
namespace {

using Clock = std::chrono::steady_clock;

double ResidentMiB() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1 << 20);
}

class TopicVectors {
 public:
  TopicVectors(int dimensions, unsigned seed) : dimensions_(dimensions), random_(seed) {
    for (int t = 0; t < 500; ++t) centres_.push_back(Unit(Gaussian(1.0F)));
  }
  std::vector<float> Next() {
    std::vector<float> v = centres_[topic_(random_)];
    // Noise of about half a centre's length: texts of one topic, not copies of each other.
    const std::vector<float> noise = Gaussian(0.5F / std::sqrt(static_cast<float>(dimensions_)));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] += noise[i];
    return Unit(std::move(v));
  }

 private:
  std::vector<float> Gaussian(float sigma) {
    std::normal_distribution<float> normal(0.0F, sigma);
    std::vector<float> v(static_cast<std::size_t>(dimensions_));
    for (float& x : v) x = normal(random_);
    return v;
  }
  static std::vector<float> Unit(std::vector<float> v) {
    double norm = 0;
    for (const float x : v) norm += static_cast<double>(x) * x;
    for (float& x : v) x = static_cast<float>(x / std::sqrt(norm));
    return v;
  }
  int dimensions_;
  std::mt19937 random_;
  std::uniform_int_distribution<std::size_t> topic_{0, 499};
  std::vector<std::vector<float>> centres_;
};

double Percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  return values[static_cast<std::size_t>(p * static_cast<double>(values.size() - 1))];
}

struct Run {
  double add_seconds = 0;
  double p50_ms = 0;
  double p99_ms = 0;
  double mib = 0;
  std::vector<std::vector<std::int64_t>> answers;
  double mean_similarity = 0;  // of all the answers' hits
};

Run Measure(std::size_t size, int dimensions, bool approximate,
            const std::vector<std::vector<float>>& queries) {
  VectorIndexConfig config;
  config.approximate_from = approximate ? 0 : size + 1;
  malloc_trim(0);  // what earlier runs freed goes back to the system first
  const double before = ResidentMiB();
  Run run;
  {
    FaissVectorIndex index(dimensions, config);
    TopicVectors vectors(dimensions, 42);
    const auto start = Clock::now();
    for (std::size_t added = 0; added < size; added += 1000) {
      std::vector<std::int64_t> ids;
      std::vector<float> flat;
      for (std::size_t i = added; i < std::min(size, added + 1000); ++i) {
        ids.push_back(static_cast<std::int64_t>(i));
        const std::vector<float> v = vectors.Next();
        flat.insert(flat.end(), v.begin(), v.end());
      }
      index.Add(ids, flat);
    }
    run.add_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    run.mib = ResidentMiB() - before;
    std::vector<double> latencies;
    for (const std::vector<float>& query : queries) {
      const auto at = Clock::now();
      const std::vector<VectorHit> hits = index.Search(query, 10);
      latencies.push_back(std::chrono::duration<double, std::milli>(Clock::now() - at).count());
      std::vector<std::int64_t> ids;
      for (const VectorHit& hit : hits) {
        ids.push_back(hit.id);
        run.mean_similarity += hit.similarity / static_cast<double>(queries.size() * hits.size());
      }
      run.answers.push_back(std::move(ids));
    }
    run.p50_ms = Percentile(latencies, 0.5);
    run.p99_ms = Percentile(latencies, 0.99);
  }
  return run;
}

}  // namespace
}  // namespace docgate

int main(int argc, char** argv) {
  CLI::App app("FaissVectorIndex: add time, search latency, recall and memory");
  std::vector<std::size_t> sizes{10000, 100000};
  int dimensions = 1024;
  int query_count = 200;
  app.add_option("--sizes", sizes)->delimiter(',');
  app.add_option("--dimensions", dimensions);
  app.add_option("--queries", query_count);
  bool exact_only = false;
  app.add_flag("--exact-only", exact_only, "leave HNSW out (its build takes minutes at 100,000)");
  int blas_from = faiss::distance_compute_blas_threshold;
  app.add_option("--blas-from", blas_from,
                 "queries per search from which FAISS's exact search uses BLAS (FAISS: 20)");
  CLI11_PARSE(app, argc, argv);
  faiss::distance_compute_blas_threshold = blas_from;

  docgate::TopicVectors query_vectors(dimensions, 7);
  std::vector<std::vector<float>> queries;
  for (int q = 0; q < query_count; ++q) queries.push_back(query_vectors.Next());
  std::printf("%-9s %-12s %10s %10s %10s %12s %10s %11s\n", "vectors", "index", "add s", "p50 ms",
              "p99 ms", "memory MiB", "recall@10", "similarity");
  for (const std::size_t size : sizes) {
    const docgate::Run exact = docgate::Measure(size, dimensions, false, queries);
    std::printf("%-9zu %-12s %10.2f %10.3f %10.3f %12.1f %10s %11s\n", size, "exact (flat)",
                exact.add_seconds, exact.p50_ms, exact.p99_ms, exact.mib, "1.000", "1.000");
    std::fflush(stdout);
    if (exact_only) continue;
    const docgate::Run hnsw = docgate::Measure(size, dimensions, true, queries);
    double found = 0;
    for (std::size_t q = 0; q < queries.size(); ++q) {
      for (const std::int64_t id : exact.answers[q]) {
        found +=
            static_cast<double>(std::count(hnsw.answers[q].begin(), hnsw.answers[q].end(), id));
      }
    }
    std::printf("%-9zu %-12s %10.2f %10.3f %10.3f %12.1f %10.3f %11.3f\n", size, "HNSW",
                hnsw.add_seconds, hnsw.p50_ms, hnsw.p99_ms, hnsw.mib,
                found / (static_cast<double>(queries.size()) * 10),
                hnsw.mean_similarity / exact.mean_similarity);
    std::fflush(stdout);
  }
  return 0;
}
