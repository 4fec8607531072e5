// Issue 7: ingestion throughput and search latency (bench/ingest.sh; results in
// docs/benchmarks.md).
//
// On one database (SQLite file or PostgreSQL URL), a docgate Application that is built but not
// started (no HTTP, no relay thread):
//   1. seeds --documents approved documents through the use cases, each of --paragraphs generated
//      paragraphs (tests/support/article_text.h), so their events wait in the outbox;
//   2. ingestion: drains the outbox with the in-process relay on this thread, which runs the
//      built-in consumers (preview projection + chunking + full-text indexing) behind the inbox,
//      and reports documents/s and MB/s of approved content; beside it, the chunker alone over the
//      same contents (the CPU floor of ingestion);
//   3. search: --queries searches (limit 10) through the reader service, timed one by one, of two
//      kinds, alternating: "broad", one or two vocabulary words, which match most chunks (every
//      match is ranked: the worst case); "selective", one document's marker word, which matches
//      one or two chunks. p50 / p99 / max of each, and the number of chunks searched.
// Prints one JSON object.
//
//   ingest_bench --database-url URL [--documents 2000] [--paragraphs 20] [--queries 2000]

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "runtime/application.h"
#include "support/article_text.h"

namespace {

using namespace docgate;
using Stopwatch = std::chrono::steady_clock;

double Seconds(Stopwatch::duration d) { return std::chrono::duration<double>(d).count(); }

double Percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  const auto index = static_cast<std::size_t>(p * static_cast<double>(values.size() - 1));
  return values[index];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App cli{"docgate ingestion and search benchmark"};
  std::string database_url;
  int documents = 2000;
  int paragraphs = 20;
  int queries = 2000;
  cli.add_option("--database-url", database_url, "sqlite://PATH or postgresql://...")->required();
  cli.add_option("--documents", documents, "approved documents to ingest");
  cli.add_option("--paragraphs", paragraphs, "paragraphs per document");
  cli.add_option("--queries", queries, "searches to time");
  CLI11_PARSE(cli, argc, argv);
  spdlog::set_level(spdlog::level::warn);

  Config config;
  config.database.url = database_url;
  config.auth.jwt_secret = "bench-secret";
  config.log.level = "warn";
  Application app(config);
  const Actor author{"alice", "", true, false, false};
  const Actor reviewer{"bob", "", false, true, false};

  std::vector<std::string> contents;
  std::size_t content_bytes = 0;
  const auto seed_start = Stopwatch::now();
  for (int i = 0; i < documents; ++i) {
    contents.push_back(Article(static_cast<std::uint32_t>(i + 1), Marker(i), paragraphs));
    content_bytes += contents.back().size();
    auto doc = app.internals().service.Create(author, "Bench document " + std::to_string(i),
                                              contents.back());
    auto submitted = app.internals().service.Submit(author, doc->id);
    if (!app.internals().service.Approve(reviewer, submitted->review.id, std::nullopt).ok()) {
      std::cerr << "ingest_bench: approval " << i << " failed\n";
      return 1;
    }
  }
  const double seed_seconds = Seconds(Stopwatch::now() - seed_start);

  const auto ingest_start = Stopwatch::now();
  while (app.internals().relay.RunOnce() > 0) {
  }
  const double ingest_seconds = Seconds(Stopwatch::now() - ingest_start);
  if (app.internals().stores.outbox->Backlog().pending != 0) {
    std::cerr << "ingest_bench: the outbox did not drain\n";
    return 1;
  }

  std::size_t chunks = 0;
  const auto chunk_start = Stopwatch::now();
  for (const auto& content : contents) chunks += SplitIntoChunks(content, config.consumers.chunker).size();
  const double chunk_seconds = Seconds(Stopwatch::now() - chunk_start);

  std::mt19937 random(42);
  const auto& words = ArticleVocabulary();
  std::vector<double> broad_ms;
  std::vector<double> selective_ms;
  std::size_t broad_hits = 0;
  std::size_t selective_hits = 0;
  for (int q = 0; q < queries; ++q) {
    const bool broad = q % 2 == 0;
    std::string query;
    if (broad) {
      query = words[random() % words.size()];
      if (q % 4 == 2) query += " " + words[random() % words.size()];
    } else {
      query = Marker(static_cast<int>(random() % static_cast<unsigned>(documents)));
    }
    const auto start = Stopwatch::now();
    const auto result = app.internals().reader.Search(query, 10);
    (broad ? broad_ms : selective_ms).push_back(Seconds(Stopwatch::now() - start) * 1000);
    if (!result.ok() || result->items.empty()) {
      std::cerr << "ingest_bench: search '" << query << "' failed or found nothing\n";
      return 1;
    }
    (broad ? broad_hits : selective_hits) += result->items.size();
  }

  const double mb = static_cast<double>(content_bytes) / 1e6;
  std::cout << nlohmann::json{
                   {"database", IsPostgresUrl(database_url) ? "postgresql" : "sqlite"},
                   {"documents", documents},
                   {"content_mb", mb},
                   {"chunks", chunks},
                   {"seed_seconds", seed_seconds},
                   {"ingest_seconds", ingest_seconds},
                   {"ingest_documents_per_s", documents / ingest_seconds},
                   {"ingest_mb_per_s", mb / ingest_seconds},
                   {"chunker_alone_mb_per_s", mb / chunk_seconds},
                   {"chunker_share_of_ingestion", chunk_seconds / ingest_seconds},
                   {"queries", queries},
                   {"broad_mean_hits", static_cast<double>(broad_hits) / broad_ms.size()},
                   {"broad_p50_ms", Percentile(broad_ms, 0.50)},
                   {"broad_p99_ms", Percentile(broad_ms, 0.99)},
                   {"broad_max_ms", Percentile(broad_ms, 1.0)},
                   {"selective_mean_hits", static_cast<double>(selective_hits) / selective_ms.size()},
                   {"selective_p50_ms", Percentile(selective_ms, 0.50)},
                   {"selective_p99_ms", Percentile(selective_ms, 0.99)},
                   {"selective_max_ms", Percentile(selective_ms, 1.0)}}
                   .dump()
            << "\n";
  return 0;
}
