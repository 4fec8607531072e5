#include "fakes/fake_chunk_index.h"

#include <algorithm>
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
                              const std::vector<std::string>& chunks) {
  FakeTables& tables = tx_.Open();
  tables.chunks.erase(id);
  if (chunks.empty()) return;
  FakeRequireDocument(tables, id, "chunk");
  tables.chunks.emplace(id, FakeTables::Chunks{version, title, chunks});
}

}  // namespace docgate
