// Issue 17: embeddings end to end on one database (results in docs/benchmarks.md).
//
// A docgate Application with embeddings pointed at the test embeddings server
// (tests/support/embeddings_test_server.h: hashed character n-grams, no model):
//   1. seeds approved documents of mixed Chinese and English text through the use cases until
//      their chunks reach --chunks, and ingests them (the in-process relay, on this thread);
//   2. embeds every chunk with the embedding worker (RunOnce until idle, on this thread):
//      chunks/s and inputs sent, which must equal the distinct texts;
//   3. what the worker's idle poll (RunOnce with nothing to do: key, claim from pending versions,
//      settle), its full scan (a claim from every approved version) and a /metrics scrape
//      (Backlog, CountMissing) cost at this size, median of --probes;
//   4. the instance's vector index: the first semantic search loads it (time, and the process's
//      resident memory before and after: the index and its key map);
//   5. search latency, one search at a time through ReaderService (limit 10, snippets included),
//      keyword, semantic and hybrid interleaved, --queries of each: p50 / p99 / max. semantic and
//      hybrid include embedding the query over HTTP on the test server (a real model adds its own
//      time);
//   6. starts the application (relay, consumers and the embedding worker on their threads) and
//      times --samples approvals of two sentences each, one at a time, from the approval's commit
//      until a semantic search for the paragraph finds the document (approval to searchable by
//      meaning), and until its ingest_status is done.
// Prints one JSON object.
//
//   embedding_search_bench --database-url URL [--chunks 100000] [--dimensions 1024]
//                          [--queries 300] [--samples 40] [--probes 20]

#include <malloc.h>
#include <spdlog/spdlog.h>
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <iostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "runtime/application.h"
#include "support/embeddings_test_server.h"

namespace {

using namespace docgate;
using Stopwatch = std::chrono::steady_clock;

double Ms(Stopwatch::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double Percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  return values[static_cast<std::size_t>(p * static_cast<double>(values.size() - 1))];
}

nlohmann::json Summary(const std::vector<double>& ms) {
  return {{"p50_ms", Percentile(ms, 0.5)},
          {"p99_ms", Percentile(ms, 0.99)},
          {"max_ms", Percentile(ms, 1.0)}};
}

double ResidentMiB() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1 << 20);
}

// The median time of `probes` calls of `fn`.
double MedianMs(int probes, const std::function<void()>& fn) {
  std::vector<double> ms;
  for (int i = 0; i < probes; ++i) {
    const auto start = Stopwatch::now();
    fn();
    ms.push_back(Ms(Stopwatch::now() - start));
  }
  return Percentile(ms, 0.5);
}

// Engineering prose as the knowledge base holds it: Chinese sentences with English terms.
class MixedText {
 public:
  explicit MixedText(std::uint32_t seed) : random_(seed) {}

  std::string Sentence() {
    static const std::vector<std::string> kChinese = {
        "审核",   "文档",   "向量",     "索引",     "发布",   "评审人", "作者", "分布式锁",
        "事务",   "数据库", "消息队列", "重试",     "幂等",   "缓存",   "部署", "故障",
        "知识库", "搜索",   "分词",     "切分",     "回滚",   "监控",   "告警", "权限",
        "版本",   "预览",   "队列积压", "主从切换", "连接池", "超时",   "限流", "熔断"};
    static const std::vector<std::string> kEnglish = {"Redis",
                                                      "PostgreSQL",
                                                      "RabbitMQ",
                                                      "outbox",
                                                      "API",
                                                      "JWT",
                                                      "FAISS",
                                                      "Sentinel",
                                                      "HAProxy",
                                                      "SELECT FOR UPDATE",
                                                      "Idempotency-Key",
                                                      "p99",
                                                      "embedding",
                                                      "SQLite"};
    std::string text;
    const int words = 8 + static_cast<int>(random_() % 12);
    for (int w = 0; w < words; ++w) {
      if (random_() % 5 == 0) {
        text += " " + kEnglish[random_() % kEnglish.size()] + " ";
      } else {
        text += kChinese[random_() % kChinese.size()];
        if (random_() % 3 == 0) text += random_() % 2 == 0 ? "的" : "与";
      }
    }
    return text + "。";
  }
  std::string Paragraph() {
    std::string text;
    const int sentences = 2 + static_cast<int>(random_() % 4);
    for (int s = 0; s < sentences; ++s) text += Sentence();
    return text;
  }
  std::string Article(int paragraphs) {
    std::string text;
    for (int p = 0; p < paragraphs; ++p) text += (p > 0 ? "\n\n" : "") + Paragraph();
    return text;
  }

 private:
  std::mt19937 random_;
};

const Actor kAuthor{"alice", "", true, false, false};
const Actor kReviewer{"bob", "", false, true, false};

DocumentId Approve(Application& app, const std::string& title, const std::string& content) {
  DocumentService& service = app.internals().service;
  auto doc = service.Create(kAuthor, title, content);
  auto submitted = service.Submit(kAuthor, doc->id);
  if (!service.Approve(kReviewer, submitted->review.id, std::nullopt).ok()) {
    throw std::runtime_error("an approval failed");
  }
  return doc->id;
}

bool Finds(Application& app, const std::string& query, SearchMode mode, DocumentId id) {
  const auto result = app.internals().reader.Search(query, 10, mode);
  if (!result.ok() || result->mode != mode) return false;
  return std::ranges::any_of(result->items,
                             [id](const SearchHit& hit) { return hit.document_id == id; });
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App cli{"docgate embeddings: compute, index, search, approval to searchable"};
  std::string database_url;
  std::size_t target_chunks = 100'000;
  int dimensions = 1024;
  int batch = 64;
  int queries = 300;
  int samples = 40;
  int probes = 20;
  cli.add_option("--database-url", database_url, "sqlite://PATH or postgresql://...")->required();
  cli.add_option("--chunks", target_chunks, "chunks to ingest and embed (at least)");
  cli.add_option("--dimensions", dimensions, "vector dimensions");
  cli.add_option("--batch", batch, "inputs per embeddings request");
  cli.add_option("--queries", queries, "searches to time per mode");
  cli.add_option("--samples", samples, "approvals timed to searchable");
  cli.add_option("--probes", probes, "idle polls and scrapes to time");
  CLI11_PARSE(cli, argc, argv);
  spdlog::set_level(spdlog::level::warn);

  testing::EmbeddingsTestServerOptions server_options;
  server_options.dimensions = dimensions;
  testing::EmbeddingsTestServer server(server_options);

  Config config;
  config.database.url = database_url;
  config.auth.jwt_secret = "bench-secret";
  config.log.level = "warn";
  config.http.port = 0;
  config.embeddings.url = server.url();
  config.embeddings.model = server_options.model;
  config.embeddings.dimensions = dimensions;
  config.embeddings.batch = batch;
  Application app(config);
  EmbeddingWorker& worker = *app.internals().pipeline.embedding_workers().front();
  nlohmann::json out{{"database", IsPostgresUrl(database_url) ? "postgresql" : "sqlite"},
                     {"dimensions", dimensions},
                     {"batch", batch}};

  // 1. Seed and ingest.
  MixedText text(42);
  std::size_t chunks = 0;
  int documents = 0;
  auto start = Stopwatch::now();
  while (chunks < target_chunks) {
    const std::string content = text.Article(12);
    chunks += SplitIntoChunks(content, config.consumers.chunker).size();
    Approve(app, "知识库文档 " + std::to_string(documents++), content);
  }
  out["seed_seconds"] = Ms(Stopwatch::now() - start) / 1000;
  start = Stopwatch::now();
  while (app.internals().relay.RunOnce() > 0) {
  }
  out["ingest_seconds"] = Ms(Stopwatch::now() - start) / 1000;
  out["documents"] = documents;
  out["chunks"] = chunks;
  out["distinct_texts"] = worker.Backlog();

  // 2. Embed.
  start = Stopwatch::now();
  while (worker.RunOnce()) {
  }
  const double embed_seconds = Ms(Stopwatch::now() - start) / 1000;
  out["embed_seconds"] = embed_seconds;
  out["embed_chunks_per_s"] = static_cast<double>(chunks) / embed_seconds;
  out["inputs_embedded"] = server.inputs_embedded();
  out["requests"] = server.requests();
  if (worker.Backlog() != 0) {
    std::cerr << "embedding_search_bench: texts are left without vectors\n";
    return 1;
  }

  // 3. The idle poll and the scrape.
  out["idle_poll_ms"] = MedianMs(probes, [&] { worker.RunOnce(); });
  out["scrape_backlog_ms"] = MedianMs(probes, [&] { worker.Backlog(); });
  // The scan of every approved version a worker makes at start and every full_scan_interval.
  out["full_scan_ms"] = MedianMs(probes, [&] {
    const TimePoint now = app.internals().clock.Now();
    if (!app.internals()
             .stores.embeddings->Claim(worker.model(), "probe", now, now, 64, ClaimScope::kAll)
             .empty()) {
      throw std::runtime_error("a full scan found texts without vectors");
    }
  });

  // 4. The index, loaded by the first semantic search.
  malloc_trim(0);
  const double before = ResidentMiB();
  start = Stopwatch::now();
  if (!app.internals().reader.Search("审核", 10, SearchMode::kSemantic).ok()) return 1;
  out["index_load_ms"] = Ms(Stopwatch::now() - start);
  out["index_mib"] = ResidentMiB() - before;

  // 5. Search latency.
  std::vector<double> keyword, semantic, hybrid;
  MixedText query_text(7);
  for (int q = 0; q < queries; ++q) {
    const std::string query = query_text.Sentence();
    for (auto [mode, ms] :
         {std::pair{SearchMode::kKeyword, &keyword}, std::pair{SearchMode::kSemantic, &semantic},
          std::pair{SearchMode::kHybrid, &hybrid}}) {
      const auto at = Stopwatch::now();
      const auto result = app.internals().reader.Search(query, 10, mode);
      ms->push_back(Ms(Stopwatch::now() - at));
      if (!result.ok() || result->mode != mode) {
        std::cerr << "embedding_search_bench: a search failed or fell back\n";
        return 1;
      }
    }
  }
  out["search"] = {
      {"keyword", Summary(keyword)}, {"semantic", Summary(semantic)}, {"hybrid", Summary(hybrid)}};

  // 6. Approval to searchable, with the application's own threads.
  app.Start();
  std::vector<double> searchable, done;
  MixedText fresh(1234);
  for (int s = 0; s < samples; ++s) {
    // One chunk of two sentences (a query is at most 256 characters), searched by its own text:
    // its vector is the nearest to the query's.
    const std::string paragraph = fresh.Sentence() + fresh.Sentence();
    const auto approved = Stopwatch::now();
    const DocumentId id = Approve(app, "新文档 " + std::to_string(s), paragraph);
    // Polled every 2 ms (a measurement, not a test), for at most a minute.
    while (!Finds(app, paragraph, SearchMode::kSemantic, id)) {
      if (Stopwatch::now() - approved > std::chrono::minutes(1)) {
        std::cerr << "embedding_search_bench: approval " << s << " never became searchable ("
                  << ToString(app.internals().service.GetDocument(id)->ingest_status) << ", "
                  << SplitIntoChunks(paragraph, config.consumers.chunker).size() << " chunks)\n";
        return 1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    searchable.push_back(Ms(Stopwatch::now() - approved));
    while (app.internals().service.GetDocument(id)->ingest_status != IngestStatus::kDone) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    done.push_back(Ms(Stopwatch::now() - approved));
  }
  app.Stop();
  out["approval_to_searchable"] = Summary(searchable);
  out["approval_to_done"] = Summary(done);
  std::cout << out.dump() << "\n";
  return 0;
}
