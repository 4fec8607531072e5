// Issue 16: search relevance on the relevance set (bench/relevance/: documents and queries with
// graded judgements, in Chinese, English and mixed text), and search latency over many chunks.
//
// On one database (SQLite file or PostgreSQL URL), a docgate Application that is built but not
// started (no HTTP, no relay thread):
//   1. every document of the set is created, submitted and approved through the use cases,
//      --copies times (copy k > 0 titled "<title> #k", for the latency run), and ingested by the
//      in-process relay on this thread;
//   2. relevance (copy 0 only, so run with --copies 1): each query through the reader service
//      (limit 50), its hits reduced to distinct documents in rank order, the first 10 judged:
//      recall@10 (relevant documents found / relevant documents), nDCG@10 (gain 2^grade - 1,
//      discount log2(rank + 1)), MRR@10 (1 / rank of the first relevant document, 0 beyond 10) and
//      answer@10 (whether a document of the query's highest grade, an answer, is in the first 10),
//      averaged per query language and for the queries whose words all appear in every relevant
//      document ("verbatim"), whose misses are listed; a query with a "split" (bench/relevance_qa:
//      "tune" or "heldout") is averaged per kind and split as well ("question-heldout"), and one
//      of another kind than verbatim or topic per kind and language ("question-zh");
//   3. latency: every query --rounds times, timed one by one, at --latency-limit (50; another
//      limit times only the rounds after the first): p50 / p99 per query language and per kind
//      of bench/relevance_qa (question, keyword).
// Prints one JSON object. Builds against docgate before issue 16 as well (the reader's result
// type is read either way), to measure before and after.
//
//   relevance_bench --database-url URL --set bench/relevance [--copies 1] [--rounds 3]
//   relevance_bench --database-url URL --set bench/relevance_qa --rounds 1

#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/application.h"

namespace {

using namespace docgate;
using nlohmann::json;
using Stopwatch = std::chrono::steady_clock;

std::vector<json> ReadLines(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<json> rows;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) rows.push_back(json::parse(line));
  }
  return rows;
}

// The hits of a search result: a list before issue 16, SearchResults::items after.
template <typename R>
const auto& Hits(const R& result) {
  if constexpr (requires { result.items; }) {
    return result.items;
  } else {
    return result;
  }
}

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[static_cast<std::size_t>(p * static_cast<double>(values.size() - 1))];
}

struct Mean {
  double sum = 0;
  int count = 0;
  void Add(double value) {
    sum += value;
    ++count;
  }
  double value() const { return count == 0 ? 0 : sum / count; }
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App cli{"docgate search relevance and latency benchmark"};
  std::string database_url;
  std::string set_dir = "bench/relevance";
  int copies = 1;
  int rounds = 3;
  cli.add_option("--database-url", database_url, "sqlite://PATH or postgresql://...")->required();
  cli.add_option("--set", set_dir, "the directory of documents.jsonl and queries.jsonl");
  cli.add_option("--copies", copies, "times each document is approved (latency over more chunks)");
  cli.add_option("--rounds", rounds, "times each query is timed");
  int latency_limit = 50;
  cli.add_option("--latency-limit", latency_limit,
                 "the limit of the timed searches (the first round, for relevance, is at 50 and "
                 "timed only when this is 50 too)");
  bool reuse = false;
  cli.add_flag("--reuse", reuse,
               "the database holds the set already, from an earlier run with the same --copies "
               "(copy 0's documents have ids 1, 2, ... in the set's order): search only");
  std::string rankings_path;
  cli.add_option("--rankings", rankings_path,
                 "write each query's first 10 documents here, one JSON line a query");
  CLI11_PARSE(cli, argc, argv);
  spdlog::set_level(spdlog::level::warn);

  const std::vector<json> documents = ReadLines(set_dir + "/documents.jsonl");
  const std::vector<json> queries = ReadLines(set_dir + "/queries.jsonl");

  Config config;
  config.database.url = database_url;
  config.auth.jwt_secret = "bench-secret";
  config.log.level = "warn";
  Application app(config);
  const Actor author{"alice", "", true, false, false};
  const Actor reviewer{"bob", "", false, true, false};

  std::map<DocumentId, std::string> name_of;  // docgate id -> the set's id, copy 0
  const auto ingest_start = Stopwatch::now();
  for (std::size_t i = 0; reuse && i < documents.size(); ++i) {
    name_of[static_cast<DocumentId>(i + 1)] = documents[i]["id"];
  }
  for (int copy = 0; !reuse && copy < copies; ++copy) {
    for (const json& document : documents) {
      std::string title = document["title"];
      if (copy > 0) title += " #" + std::to_string(copy);
      auto doc = app.internals().service.Create(author, title, document["content"]);
      auto submitted = app.internals().service.Submit(author, doc->id);
      if (!app.internals().service.Approve(reviewer, submitted->review.id, std::nullopt).ok()) {
        std::cerr << "relevance_bench: approval of " << document["id"] << " failed\n";
        return 1;
      }
      if (copy == 0) name_of[doc->id] = document["id"];
    }
    while (app.internals().relay.RunOnce() > 0) {
    }
  }
  const double ingest_seconds =
      std::chrono::duration<double>(Stopwatch::now() - ingest_start).count();

  std::map<std::string, Mean> recall;
  std::map<std::string, Mean> ndcg;
  std::map<std::string, Mean> mrr;
  std::map<std::string, Mean> answered;  // a document of the highest grade in the first 10
  std::ofstream rankings_out;
  if (!rankings_path.empty()) rankings_out.open(rankings_path);
  std::map<std::string, std::vector<double>> latency_ms;
  json misses = json::array();
  int zero_hits = 0;
  for (const json& query : queries) {
    const std::string text = query["query"];
    const std::string lang = query["lang"];
    const std::string kind = query.value("kind", "");
    const bool verbatim = kind == "verbatim";
    const std::string split = query.value("split", "");  // bench/relevance_qa: tune or heldout
    std::vector<std::string> ranked;  // distinct documents of copy 0, best first
    for (int round = 0; round < rounds; ++round) {
      const int limit = round == 0 ? 50 : latency_limit;
      const auto start = Stopwatch::now();
      const auto result = app.internals().reader.Search(text, limit);
      const double elapsed =
          std::chrono::duration<double, std::milli>(Stopwatch::now() - start).count();
      if (!result.ok()) {
        std::cerr << "relevance_bench: search '" << text << "' failed\n";
        return 1;
      }
      if (round > 0 || latency_limit == 50) {
        latency_ms[lang].push_back(elapsed);
        if (!kind.empty() && !verbatim && kind != "topic") latency_ms[kind].push_back(elapsed);
      }
      if (round > 0) continue;
      for (const auto& hit : Hits(*result)) {
        const auto found = name_of.find(hit.document_id);
        if (found == name_of.end()) continue;
        if (std::find(ranked.begin(), ranked.end(), found->second) == ranked.end()) {
          ranked.push_back(found->second);
        }
      }
    }
    if (ranked.empty()) ++zero_hits;
    if (ranked.size() > 10) ranked.resize(10);
    const json& relevant = query["relevant"];
    double dcg = 0;
    int found = 0;
    double reciprocal_rank = 0;
    for (std::size_t rank = 0; rank < ranked.size(); ++rank) {
      if (!relevant.contains(ranked[rank])) continue;
      ++found;
      if (reciprocal_rank == 0) reciprocal_rank = 1.0 / static_cast<double>(rank + 1);
      dcg += (std::pow(2.0, relevant[ranked[rank]].get<int>()) - 1) / std::log2(rank + 2.0);
    }
    std::vector<int> grades;
    for (const auto& [id, grade] : relevant.items()) grades.push_back(grade.get<int>());
    std::sort(grades.rbegin(), grades.rend());
    double ideal = 0;
    for (std::size_t rank = 0; rank < grades.size() && rank < 10; ++rank) {
      ideal += (std::pow(2.0, grades[rank]) - 1) / std::log2(rank + 2.0);
    }
    const int top_grade = grades.empty() ? 0 : grades.front();
    const bool has_answer = std::any_of(ranked.begin(), ranked.end(), [&](const std::string& id) {
      return relevant.contains(id) && relevant[id].get<int>() == top_grade;
    });
    if (rankings_out) {
      rankings_out << json{{"id", query.value("id", "")}, {"query", text}, {"top", ranked}}.dump()
                   << "\n";
    }
    const double query_recall =
        static_cast<double>(found) / static_cast<double>(std::min<std::size_t>(grades.size(), 10));
    // bench/relevance's kinds are verbatim and topic; other kinds (bench/relevance_qa's question
    // and keyword) are grouped under their own name.
    std::vector<std::string> groups{lang, "all"};
    if (verbatim) {
      groups.push_back("verbatim-" + lang);
    } else if (kind.empty() || kind == "topic") {
      groups.push_back("topic-" + lang);
    } else {
      groups.push_back(kind + "-" + lang);
    }
    if (!split.empty()) groups.push_back(kind + "-" + split);
    for (const std::string& group : groups) {
      recall[group].Add(query_recall);
      ndcg[group].Add(ideal > 0 ? dcg / ideal : 0);
      mrr[group].Add(reciprocal_rank);
      answered[group].Add(has_answer ? 1 : 0);
    }
    if (verbatim && query_recall < 1.0) {
      json missing = json::array();
      for (const auto& [id, grade] : relevant.items()) {
        if (std::find(ranked.begin(), ranked.end(), id) == ranked.end()) missing.push_back(id);
      }
      misses.push_back({{"query", text}, {"missing", missing}, {"found", ranked.size()}});
    }
  }

  json report{{"database", database_url.substr(0, database_url.find(':'))},
              {"documents", documents.size() * static_cast<std::size_t>(copies)},
              {"queries", queries.size()},
              {"ingest_seconds", ingest_seconds},
              {"queries_without_hits", zero_hits},
              {"verbatim_misses", misses}};
  for (const auto& [group, mean] : recall) {
    report["relevance"][group] = {{"queries", mean.count},
                                  {"recall_at_10", mean.value()},
                                  {"ndcg_at_10", ndcg[group].value()},
                                  {"mrr_at_10", mrr[group].value()},
                                  {"answer_at_10", answered[group].value()}};
  }
  for (const auto& [lang, values] : latency_ms) {
    report["latency_ms"][lang] = {{"searches", values.size()},
                                  {"p50", Percentile(values, 0.5)},
                                  {"p99", Percentile(values, 0.99)}};
  }
  std::cout << report.dump(2) << "\n";
  return 0;
}
