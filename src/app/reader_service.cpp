#include "app/reader_service.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "core/lifecycle.h"

namespace docgate {

Result<Preview> ReaderService::GetPreview(DocumentId id) {
  const auto doc = documents_.FindDocument(id);
  if (!doc)
    return MakeError(ErrorCode::kNotFound,
                     "document " + std::to_string(id) + " not found");
  if (!doc->approved_version) {
    return MakeError(ErrorCode::kNotFound, "document " + std::to_string(id) +
                                               " has no approved version yet");
  }
  std::optional<PreviewRecord> preview;
  try {
    preview = previews_.Find(id);
  } catch (const StorageUnavailable &) {
    // The database keeps every version, so an outage of the preview store costs
    // readers nothing.
  }
  if (preview && preview->version >= *doc->approved_version) {
    return Preview{preview->document_id, preview->version,
                   std::move(preview->content), preview->approved_at};
  }
  // Approved, not projected yet. Read after the document without a race: an approved version is
  // never dropped (ADR 0008), whatever edits commit in between.
  auto content = documents_.FindContent(id, *doc->approved_version);
  if (!content) {
    throw StorageError("document " + std::to_string(id) +
                       " has no content for its approved version " +
                       std::to_string(*doc->approved_version));
  }
  return Preview{id, *doc->approved_version, std::move(*content),
                 doc->approved_at.value_or(TimePoint{})};
}

namespace {

SearchHit HitOf(ChunkHit chunk, const SearchQuery& query) {
  return SearchHit{
      chunk.document_id, chunk.version, std::move(chunk.title),  MakeSnippet(chunk.content, query),
      chunk.score,       chunk.ordinal, std::move(chunk.section)};
}

ChunkHit ChunkOf(SemanticHit hit) {
  return ChunkHit{hit.chunk.document_id,        hit.chunk.version, std::move(hit.chunk.title),
                  std::move(hit.chunk.content), hit.similarity,    hit.chunk.ordinal,
                  std::move(hit.chunk.section)};
}

// The first (best) chunk of each document, in order.
std::vector<ChunkHit> BestOfEachDocument(std::vector<ChunkHit> hits) {
  std::vector<ChunkHit> best;
  std::set<DocumentId> seen;
  for (ChunkHit& hit : hits) {
    if (seen.insert(hit.document_id).second) best.push_back(std::move(hit));
  }
  return best;
}

}  // namespace

SearchResults ReaderService::Keyword(const SearchQuery& query, int limit, SearchGrouping grouping) {
  SearchResults results;
  for (ChunkHit& hit : chunks_.Search(query, limit, grouping)) {
    results.items.push_back(HitOf(std::move(hit), query));
  }
  return results;
}

Result<SearchResults> ReaderService::Search(const std::string& query, std::optional<int> limit,
                                            std::optional<SearchMode> mode,
                                            SearchGrouping grouping) {
  if (auto valid = ValidateSearchQuery(query); !valid) return valid.error();
  const int count = limit.value_or(config_.default_search_limit);
  if (count < 1 || count > config_.max_search_limit) {
    return MakeError(ErrorCode::kValidation,
                     "limit must be 1.." + std::to_string(config_.max_search_limit));
  }
  const SearchMode asked =
      mode.value_or(semantic_ != nullptr ? SearchMode::kHybrid : SearchMode::kKeyword);
  if (asked != SearchMode::kKeyword && semantic_ == nullptr) {
    return MakeError(ErrorCode::kValidation,
                     "mode semantic and hybrid need embeddings, and this docgate has none "
                     "configured (DOCGATE_EMBEDDINGS_URL): use mode=keyword or leave mode out");
  }
  const SearchQuery parsed = ParseSearchQuery(query);
  if (asked == SearchMode::kKeyword) return Keyword(parsed, count, grouping);

  // Hybrid fuses deeper rankings than it returns, so that an item ranked well by one side only
  // still competes. By meaning, a document may fill several places with its chunks: asked for
  // documents, the index is asked deeper still.
  const int depth = asked == SearchMode::kHybrid ? std::max(2 * count, 20) : count;
  const int chunk_depth = grouping == SearchGrouping::kDocument ? 4 * depth : depth;
  std::vector<ChunkHit> by_meaning;
  try {
    for (SemanticHit& hit : semantic_->Search(query, chunk_depth)) {
      by_meaning.push_back(ChunkOf(std::move(hit)));
    }
  } catch (const EmbeddingsUnavailable&) {
    // A provider that is down or answers garbage is never a searcher's error: the keyword
    // ranking is the answer there is, and `keyword_fallback` says so.
    SearchResults results = Keyword(parsed, count, grouping);
    results.keyword_fallback = true;
    return results;
  }
  if (grouping == SearchGrouping::kDocument) by_meaning = BestOfEachDocument(std::move(by_meaning));
  if (asked == SearchMode::kSemantic) {
    SearchResults results;
    results.mode = asked;
    if (std::ssize(by_meaning) > count) by_meaning.resize(static_cast<std::size_t>(count));
    for (ChunkHit& hit : by_meaning) results.items.push_back(HitOf(std::move(hit), parsed));
    return results;
  }
  return Fused(parsed, chunks_.Search(parsed, depth, grouping), std::move(by_meaning), count,
               grouping);
}

SearchResults ReaderService::Fused(const SearchQuery& query, std::vector<ChunkHit> by_words,
                                   std::vector<ChunkHit> by_meaning, int limit,
                                   SearchGrouping grouping) {
  // An item is a document (kDocument) or a document's chunk (kChunk). Where both sides rank a
  // document, its keyword chunk stands for it: its snippet shows the words matched.
  struct Item {
    ChunkHit chunk;
    double score = 0;
  };
  std::map<std::pair<DocumentId, std::int32_t>, Item> fused;
  const auto add = [&](ChunkHit chunk, int rank) {
    const std::int32_t ordinal = grouping == SearchGrouping::kChunk ? chunk.ordinal : 0;
    auto [entry, inserted] = fused.try_emplace({chunk.document_id, ordinal});
    if (inserted) entry->second.chunk = std::move(chunk);
    entry->second.score += 1.0 / (kRrfK + rank);
  };
  int rank = 0;
  for (ChunkHit& hit : by_words) add(std::move(hit), ++rank);
  rank = 0;
  for (ChunkHit& hit : by_meaning) add(std::move(hit), ++rank);
  std::vector<Item> ranked;
  ranked.reserve(fused.size());
  for (auto& [identity, entry] : fused) ranked.push_back(std::move(entry));
  std::stable_sort(ranked.begin(), ranked.end(), [](const Item& a, const Item& b) {
    return a.score > b.score;  // ties keep (document, chunk) order
  });
  if (std::ssize(ranked) > limit) ranked.resize(static_cast<std::size_t>(limit));
  SearchResults results;
  results.mode = SearchMode::kHybrid;
  for (Item& entry : ranked) {
    entry.chunk.score = entry.score;
    results.items.push_back(HitOf(std::move(entry.chunk), query));
  }
  return results;
}

}  // namespace docgate
