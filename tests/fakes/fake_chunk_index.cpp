#include "fakes/fake_chunk_index.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>
#include <tuple>
#include <utility>

#include "app/text_analyzer.h"

namespace docgate {
namespace {

using RankedHit = std::tuple<double, DocumentId, std::size_t, ChunkHit>;  // (-score, id, ordinal)

// A chunk's text as the index sees it: the matches of each of the query's phrases in its title and
// content, and its length in positions.
struct ChunkTerms {
  std::vector<double> frequency;  // per phrase: title matches weigh kTitleWeight, content 1
  double length = 0;
};

constexpr double kTitleWeight = 2.5;
constexpr double kK1 = 1.2;
constexpr double kB = 0.75;

double Positions(std::string_view text) {
  const std::vector<AnalyzedTerm> terms = AnalyzeText(text, AnalyzerUse::kIndex);
  return terms.empty() ? 0 : terms.back().position + 1.0;
}

ChunkTerms Analyse(const SearchQuery& query, const std::vector<PhraseMatch>& in_title,
                   const std::string& title, const std::string& content) {
  ChunkTerms chunk{std::vector<double>(query.phrases.size(), 0.0),
                   Positions(title) + Positions(content)};
  for (const PhraseMatch& match : in_title) chunk.frequency[match.phrase] += kTitleWeight;
  for (const PhraseMatch& match : AnalyzedText(content).Find(query)) {
    chunk.frequency[match.phrase] += 1;
  }
  return chunk;
}

bool IsHit(const SearchQuery& query, const ChunkTerms& chunk) {
  bool any = false;
  for (std::size_t p = 0; p < query.phrases.size(); ++p) {
    if (query.phrases[p].required && chunk.frequency[p] == 0) return false;
    any = any || chunk.frequency[p] > 0;
  }
  return any;
}

// Every chunk of the approved versions in `tables` that the query matches, scored by Okapi BM25
// over the query's phrases like SQLite's bm25 (the title's matches weighted, idf from the chunks
// of approved versions, floored at 1e-6).
std::vector<RankedHit> Matches(const FakeTables& tables, const SearchQuery& query) {
  struct Candidate {
    DocumentId id;
    std::int32_t version;
    const std::string* title;
    std::size_t ordinal;
    const std::string* content;
    const std::string* section;
    ChunkTerms terms;
  };
  std::vector<Candidate> chunks;
  for (const auto& [id, stored] : tables.chunks) {
    if (tables.documents.at(id).approved_version != stored.version) continue;
    const std::vector<PhraseMatch> in_title = AnalyzedText(stored.title).Find(query);
    for (std::size_t ordinal = 0; ordinal < stored.contents.size(); ++ordinal) {
      chunks.push_back(Candidate{id, stored.version, &stored.title, ordinal,
                                 &stored.contents[ordinal], &stored.sections[ordinal],
                                 Analyse(query, in_title, stored.title, stored.contents[ordinal])});
    }
  }
  const double total = static_cast<double>(chunks.size());
  double lengths = 0;
  std::vector<double> holding(query.phrases.size(), 0.0);
  for (const Candidate& chunk : chunks) {
    lengths += chunk.terms.length;
    for (std::size_t p = 0; p < holding.size(); ++p) holding[p] += chunk.terms.frequency[p] > 0;
  }
  const double average = total > 0 ? lengths / total : 0;
  std::vector<RankedHit> hits;
  for (const Candidate& chunk : chunks) {
    if (!IsHit(query, chunk.terms)) continue;
    double score = 0;
    for (std::size_t p = 0; p < holding.size(); ++p) {
      const double idf = std::max(1e-6, std::log((total - holding[p] + 0.5) / (holding[p] + 0.5)));
      const double f = chunk.terms.frequency[p];
      const double norm = average > 0 ? chunk.terms.length / average : 1;
      score += idf * f * (kK1 + 1) / (f + kK1 * (1 - kB + kB * norm));
    }
    hits.emplace_back(-score, chunk.id, chunk.ordinal,
                      ChunkHit{chunk.id, chunk.version, *chunk.title, *chunk.content, score,
                               static_cast<std::int32_t>(chunk.ordinal), *chunk.section});
  }
  return hits;
}

}  // namespace

FakeChunkIndex::FakeChunkIndex(std::shared_ptr<FakeDatabase> database)
    : database_(std::move(database)) {}

std::vector<ChunkHit> FakeChunkIndex::Search(const SearchQuery& query, int limit,
                                             SearchGrouping grouping) {
  if (query.empty() || limit <= 0) return {};
  std::vector<RankedHit> hits =
      database_->Read([&](const FakeTables& tables) { return Matches(tables, query); });
  std::sort(hits.begin(), hits.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), std::get<1>(a), std::get<2>(a)) <
           std::tie(std::get<0>(b), std::get<1>(b), std::get<2>(b));
  });
  std::vector<ChunkHit> page;
  std::set<DocumentId> documents;
  for (auto& hit : hits) {
    if (static_cast<int>(page.size()) >= limit) break;
    const bool first = documents.insert(std::get<1>(hit)).second;
    if (grouping == SearchGrouping::kDocument && !first) continue;
    page.push_back(std::move(std::get<3>(hit)));
  }
  return page;
}

std::vector<std::string> FakeChunkIndex::ListChunks(DocumentId id) {
  return database_->Read([&](const FakeTables& tables) {
    const auto found = tables.chunks.find(id);
    if (found == tables.chunks.end()) return std::vector<std::string>{};
    return found->second.contents;
  });
}

void FakeChunkWriter::Replace(DocumentId id, std::int32_t version, const std::string& title,
                              const std::vector<std::string>& chunks,
                              const std::vector<std::string>& sections,
                              const std::vector<std::string>& text_keys) {
  FakeTables& tables = tx_.Open();
  std::vector<std::string> replaced;
  if (const auto old = tables.chunks.find(id); old != tables.chunks.end()) {
    replaced = old->second.text_keys;
    tables.chunks.erase(old);
  }
  if (!chunks.empty()) {
    FakeRequireDocument(tables, id, "chunk");
    std::vector<std::string> keys = text_keys;
    keys.resize(chunks.size());
    std::vector<std::string> headings = sections;
    headings.resize(chunks.size());
    tables.chunks.emplace(
        id, FakeTables::Chunks{version, title, chunks, std::move(keys), std::move(headings)});
  }
  const TimePoint now =
      std::chrono::floor<std::chrono::milliseconds>(std::chrono::system_clock::now());
  for (auto& [key, row] : tables.embeddings) {
    const std::string& text_key = std::get<2>(key);
    if (text_key.empty()) continue;
    const bool was_replaced = std::ranges::find(replaced, text_key) != replaced.end();
    if (FakeAnyChunkHasKey(tables, text_key)) {
      row.orphaned_at.reset();
    } else if (was_replaced && !row.orphaned_at) {
      row.orphaned_at = now;
    }
  }
}

}  // namespace docgate
