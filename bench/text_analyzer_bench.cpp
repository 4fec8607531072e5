// Issue 16: docgate's text analyzer alone (app/text_analyzer.h), in bytes of text per second, on
// the relevance set's documents (bench/relevance, written in Chinese, English and mixed text),
// analysed for the index as ingestion does, and for a query; and the snippet of a hit (the
// analyzer plus the window and highlights), as a search does for each hit.
//
//   text_analyzer_bench [--benchmark_repetitions=3]

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/search_query.h"
#include "app/snippet.h"
#include "app/text_analyzer.h"
#include "support/build_paths.h"

namespace docgate {
namespace {

// The contents of the set's documents of one language ("zh", "en", "mixed").
const std::vector<std::string>& Contents(const std::string& lang) {
  static const std::map<std::string, std::vector<std::string>> by_lang = [] {
    std::ifstream in(testing::BesideExecutable(DOCGATE_RELEVANCE_SET) + "/documents.jsonl");
    if (!in) throw std::runtime_error("cannot read the relevance set");
    std::map<std::string, std::vector<std::string>> contents;
    for (std::string line; std::getline(in, line);) {
      const nlohmann::json document = nlohmann::json::parse(line);
      contents[document["lang"]].push_back(document["content"]);
    }
    return contents;
  }();
  return by_lang.at(lang);
}

void Analyze(benchmark::State& state, const std::string& lang, AnalyzerUse use) {
  const std::vector<std::string>& contents = Contents(lang);
  std::int64_t bytes = 0;
  for (auto _ : state) {
    for (const std::string& content : contents) {
      benchmark::DoNotOptimize(AnalyzeText(content, use));
      bytes += static_cast<std::int64_t>(content.size());
    }
  }
  state.SetBytesProcessed(bytes);
}

void Snippets(benchmark::State& state, const std::string& lang, const std::string& query) {
  const std::vector<std::string>& contents = Contents(lang);
  const SearchQuery parsed = ParseSearchQuery(query);
  std::int64_t bytes = 0;
  for (auto _ : state) {
    for (const std::string& content : contents) {
      benchmark::DoNotOptimize(MakeSnippet(content, parsed));
      bytes += static_cast<std::int64_t>(content.size());
    }
  }
  state.SetBytesProcessed(bytes);
}

BENCHMARK_CAPTURE(Analyze, index_zh, "zh", AnalyzerUse::kIndex);
BENCHMARK_CAPTURE(Analyze, index_en, "en", AnalyzerUse::kIndex);
BENCHMARK_CAPTURE(Analyze, index_mixed, "mixed", AnalyzerUse::kIndex);
BENCHMARK_CAPTURE(Analyze, query_zh, "zh", AnalyzerUse::kQuery);
BENCHMARK_CAPTURE(Analyze, query_en, "en", AnalyzerUse::kQuery);
BENCHMARK_CAPTURE(Snippets, snippet_zh, "zh", "队列 重试");
BENCHMARK_CAPTURE(Snippets, snippet_en, "en", "lock timeout");

}  // namespace
}  // namespace docgate

BENCHMARK_MAIN();
