// Issue 17: the embeddings client's throughput (OpenAiEmbedder) against the test embeddings server
// (tests/support/embeddings_test_server.h) on this machine, by inputs per request: chunks of the
// relevance set's documents (bench/relevance, Chinese, English and mixed), embedded by one caller
// and by two at once. The server computes no model, so this is what docgate's side of the
// exchange costs (JSON both ways, HTTP, the checks and normalisation of every vector) plus the
// test server's own work: a ceiling for docgate, not a model's speed.
//
//   embeddings_bench [--benchmark_repetitions=3]

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "adapters/openai/openai_embedder.h"
#include "core/chunker.h"
#include "support/embeddings_test_server.h"
#include "support/build_paths.h"

namespace docgate {
namespace {

constexpr int kDimensions = 1024;  // the size of bge-m3's vectors, a common choice

// The chunks ingestion would make of the relevance set's documents.
const std::vector<std::string>& Chunks() {
  static const std::vector<std::string> chunks = [] {
    std::ifstream in(testing::BesideExecutable(DOCGATE_RELEVANCE_SET) + "/documents.jsonl");
    if (!in) throw std::runtime_error("cannot read the relevance set");
    std::vector<std::string> all;
    for (std::string line; std::getline(in, line);) {
      for (std::string& chunk :
           SplitIntoChunks(nlohmann::json::parse(line)["content"].get<std::string>(), {})) {
        all.push_back(std::move(chunk));
      }
    }
    return all;
  }();
  return chunks;
}

void Embed(benchmark::State& state, int callers) {
  testing::EmbeddingsTestServerOptions options;
  options.dimensions = kDimensions;
  testing::EmbeddingsTestServer server(options);
  EmbeddingsConfig config;
  config.url = server.url();
  config.model = options.model;
  config.dimensions = kDimensions;
  config.batch = static_cast<int>(state.range(0));
  config.concurrency = callers;
  OpenAiEmbedder embedder(config);
  const std::vector<std::string>& chunks = Chunks();
  for (auto _ : state) {
    std::vector<std::thread> threads;
    for (int caller = 0; caller < callers; ++caller) {
      threads.emplace_back([&, caller] {
        // Each caller embeds its share, max_batch() inputs per call as the worker does.
        std::vector<std::string> batch;
        for (std::size_t i = static_cast<std::size_t>(caller); i < chunks.size();
             i += static_cast<std::size_t>(callers)) {
          batch.push_back(chunks[i]);
          if (static_cast<int>(batch.size()) == config.batch) {
            benchmark::DoNotOptimize(embedder.Embed(batch));
            batch.clear();
          }
        }
        if (!batch.empty()) benchmark::DoNotOptimize(embedder.Embed(batch));
      });
    }
    for (std::thread& thread : threads) thread.join();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(chunks.size()));
  state.counters["requests"] = benchmark::Counter(static_cast<double>(server.requests()),
                                                  benchmark::Counter::kAvgIterations);
}

// Inputs per request, timed as a whole run.
void BatchSizes(benchmark::internal::Benchmark* bench) {
  for (const int batch : {1, 8, 32, 128}) bench->Arg(batch);
  bench->Unit(benchmark::kMillisecond)->UseRealTime();
}

BENCHMARK_CAPTURE(Embed, one_caller, 1)->Apply(BatchSizes);
BENCHMARK_CAPTURE(Embed, two_callers, 2)->Apply(BatchSizes);

}  // namespace
}  // namespace docgate

BENCHMARK_MAIN();
