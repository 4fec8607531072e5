// Issue 12: SplitIntoChunks's throughput (bytes of content per second, default config) on prose
// and on inputs that defeat its cut rules. Each input is generated at the benchmark's size.

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <string_view>

#include "core/chunker.h"
#include "support/article_text.h"

namespace docgate {
namespace {

std::string Repeated(std::string_view unit, std::size_t bytes) {
  std::string text;
  while (text.size() < bytes) text += unit;
  return text;
}

// Documents as the consumers' tests make them: paragraphs of a few sentences.
std::string Prose(std::size_t bytes) {
  std::string text;
  for (int n = 0; text.size() < bytes; ++n) {
    text += Article(static_cast<std::uint32_t>(n), Marker(n), 8) + "\n\n";
  }
  return text.substr(0, bytes);
}

// The same sentences in one paragraph, so that every chunk is a piece cut at a sentence end.
std::string ProseParagraph(std::size_t bytes) {
  std::string text = Prose(bytes);
  for (char& c : text) {
    if (c == '\n') c = ' ';
  }
  return text;
}

// Letters of many scripts and widths, CJK full stops and closers, with no whitespace at all.
std::string MixedScriptsWithoutSpaces(std::size_t bytes) {
  const std::string_view units[] = {"中", "文", "😀",  "é",  "ж",  "x",
                                    "한", "。", "）", "」", "\"", "."};
  std::mt19937 random(12);
  std::string text;
  while (text.size() < bytes) text += units[random() % std::size(units)];
  return text;
}

void Chunk(benchmark::State& state, const std::function<std::string(std::size_t)>& make) {
  const std::string content = make(static_cast<std::size_t>(state.range(0)));
  const ChunkerConfig config{};
  std::size_t chunks = 0;
  for (auto _ : state) {
    const auto result = SplitIntoChunks(content, config);
    chunks = result.size();
    benchmark::DoNotOptimize(result.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * content.size()));
  state.counters["chunks"] = static_cast<double>(chunks);
}

#define DOCGATE_CHUNKER_BENCH(name, make) \
  BENCHMARK_CAPTURE(Chunk, name, make)->RangeMultiplier(4)->Range(4 << 10, 1 << 20)

DOCGATE_CHUNKER_BENCH(prose, Prose);
DOCGATE_CHUNKER_BENCH(prose_one_paragraph, ProseParagraph);
DOCGATE_CHUNKER_BENCH(closing_parens, [](std::size_t n) { return Repeated(")", n); });
DOCGATE_CHUNKER_BENCH(quotes, [](std::size_t n) { return Repeated("\"", n); });
DOCGATE_CHUNKER_BENCH(cjk_full_stops, [](std::size_t n) { return Repeated("\u3002", n); });
DOCGATE_CHUNKER_BENCH(one_word, [](std::size_t n) { return Repeated("x", n); });
DOCGATE_CHUNKER_BENCH(cjk_without_spaces, [](std::size_t n) { return Repeated("中文", n); });
DOCGATE_CHUNKER_BENCH(mixed_scripts_without_spaces, MixedScriptsWithoutSpaces);

}  // namespace
}  // namespace docgate

BENCHMARK_MAIN();
