// Issue 12: SplitIntoChunks's throughput (bytes of content per second, default config) on prose
// and on inputs that defeat its cut rules. Issue 39: SplitMarkdownIntoChunks's on the same prose
// (what a document chunked as text before formats now costs as Markdown) and on a manual with
// headings, code blocks and tables. Each input is generated at the benchmark's size.

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <string_view>

#include "app/markdown_chunker.h"
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

// `split` (a chunker) on the input `make` generates at the benchmark's size.
template <typename Split>
void Run(benchmark::State& state, const std::function<std::string(std::size_t)>& make,
         Split split) {
  const std::string content = make(static_cast<std::size_t>(state.range(0)));
  const ChunkerConfig config{};
  std::size_t chunks = 0;
  for (auto _ : state) {
    const auto result = split(content, config);
    chunks = result.size();
    benchmark::DoNotOptimize(result.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * content.size()));
  state.counters["chunks"] = static_cast<double>(chunks);
}

void Chunk(benchmark::State& state, const std::function<std::string(std::size_t)>& make) {
  Run(state, make, [](std::string_view content, const ChunkerConfig& config) {
    return SplitIntoChunks(content, config);
  });
}

// A Markdown manual in Chinese and English: a section per three paragraphs under a three-level
// path, every section with a fenced code block and a table.
std::string MarkdownManual(std::size_t bytes) {
  std::string text = "# 运维手册\n\n";
  for (int n = 0; text.size() < bytes; ++n) {
    if (n % 9 == 0) text += "## 第 " + std::to_string(n / 9 + 1) + " 章\n\n";
    text += "### " + Marker(n) + " 的步骤\n\n";
    text += Article(static_cast<std::uint32_t>(n), Marker(n), 3) + "\n\n";
    text += "```sh\npg_dump -Fc docgate > /backup/docgate-" + std::to_string(n) +
            ".dump\nsystemctl restart docgate\n```\n\n";
    text +=
        "| 参数 | 默认值 |\n|---|---|\n| DOCGATE_LISTEN | 127.0.0.1:8080 |\n| 保留天数 | 30 |\n\n";
  }
  return text.substr(0, bytes);
}

void ChunkMarkdown(benchmark::State& state, const std::function<std::string(std::size_t)>& make) {
  Run(state, make, [](std::string_view content, const ChunkerConfig& config) {
    return SplitMarkdownIntoChunks(content, config);
  });
}

BENCHMARK_CAPTURE(ChunkMarkdown, prose, Prose)->RangeMultiplier(4)->Range(4 << 10, 1 << 20);
BENCHMARK_CAPTURE(ChunkMarkdown, manual, MarkdownManual)
    ->RangeMultiplier(4)
    ->Range(4 << 10, 1 << 20);
BENCHMARK_CAPTURE(Chunk, manual, MarkdownManual)->RangeMultiplier(4)->Range(4 << 10, 1 << 20);

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
