#include "fakes/fake_chunk_index.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <tuple>
#include <utility>

namespace docgate {
namespace {

using RankedHit = std::tuple<double, DocumentId, std::size_t, ChunkHit>;  // (-score, id, ordinal)

// Every chunk of the approved versions in `tables` in whose title or content each phrase occurs.
std::vector<RankedHit> Matches(const FakeTables& tables, const SearchQuery& query) {
  std::vector<RankedHit> hits;
  for (const auto& [id, chunks] : tables.chunks) {
    const Document& doc = tables.documents.at(id);
    if (doc.approved_version != chunks.version) continue;
    const std::vector<PhraseMatch> in_title = AnalyzedText(chunks.title).Find(query);
    for (std::size_t ordinal = 0; ordinal < chunks.contents.size(); ++ordinal) {
      const std::string& content = chunks.contents[ordinal];
      const std::vector<PhraseMatch> in_content = AnalyzedText(content).Find(query);
      std::set<std::size_t> found;
      for (const auto* matches : {&in_title, &in_content}) {
        for (const PhraseMatch& match : *matches) found.insert(match.phrase);
      }
      if (found.size() < query.phrases.size()) continue;
      const double score =
          2.5 * static_cast<double>(in_title.size()) + static_cast<double>(in_content.size());
      hits.emplace_back(-score, id, ordinal,
                        ChunkHit{id, chunks.version, chunks.title, content, score});
    }
  }
  return hits;
}

}  // namespace

FakeChunkIndex::FakeChunkIndex(std::shared_ptr<FakeDatabase> database)
    : database_(std::move(database)) {}

std::vector<ChunkHit> FakeChunkIndex::Search(const SearchQuery& query, int limit) {
  if (query.empty() || limit <= 0) return {};
  std::vector<RankedHit> hits =
      database_->Read([&](const FakeTables& tables) { return Matches(tables, query); });
  std::sort(hits.begin(), hits.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), std::get<1>(a), std::get<2>(a)) <
           std::tie(std::get<0>(b), std::get<1>(b), std::get<2>(b));
  });
  std::vector<ChunkHit> page;
  for (auto& hit : hits) {
    if (static_cast<int>(page.size()) >= limit) break;
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
    tables.chunks.emplace(id, FakeTables::Chunks{version, title, chunks, std::move(keys)});
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
