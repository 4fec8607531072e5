#include "app/reader_service.h"

#include <algorithm>
#include <map>
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
  // Approved, not projected yet.
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
  return SearchHit{chunk.document_id, chunk.version, std::move(chunk.title),
                   MakeSnippet(chunk.content, query), chunk.score};
}

ChunkHit ChunkOf(SemanticHit hit) {
  return ChunkHit{hit.chunk.document_id, hit.chunk.version, std::move(hit.chunk.title),
                  std::move(hit.chunk.content), hit.similarity};
}

}  // namespace

SearchResults ReaderService::Keyword(const SearchQuery& query, int limit) {
  SearchResults results;
  for (ChunkHit& hit : chunks_.Search(query, limit)) {
    results.items.push_back(HitOf(std::move(hit), query));
  }
  return results;
}

Result<SearchResults> ReaderService::Search(const std::string& query, std::optional<int> limit,
                                            std::optional<SearchMode> mode) {
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
  if (asked == SearchMode::kKeyword) return Keyword(parsed, count);

  // Hybrid fuses deeper rankings than it returns, so that a chunk ranked well by one side only
  // still competes.
  const int depth = asked == SearchMode::kHybrid ? std::max(2 * count, 20) : count;
  std::vector<SemanticHit> by_meaning;
  try {
    by_meaning = semantic_->Search(query, depth);
  } catch (const EmbeddingsUnavailable&) {
    // A provider that is down or answers garbage is never a searcher's error: the keyword
    // ranking is the answer there is, and `mode` says so.
    return Keyword(parsed, count);
  }
  SearchResults results;
  results.mode = asked;
  if (asked == SearchMode::kSemantic) {
    for (SemanticHit& hit : by_meaning) {
      results.items.push_back(HitOf(ChunkOf(std::move(hit)), parsed));
    }
    return results;
  }

  // A chunk is identified by its document and its text (the keyword side knows no ordinal).
  struct Fused {
    ChunkHit chunk;
    double score = 0;
  };
  std::map<std::pair<DocumentId, std::string>, Fused> fused;
  const auto add = [&fused](ChunkHit chunk, int rank) {
    const double score = 1.0 / (kRrfK + rank);
    auto [entry, inserted] = fused.try_emplace({chunk.document_id, chunk.content});
    if (inserted) entry->second.chunk = std::move(chunk);
    entry->second.score += score;
  };
  int rank = 0;
  for (ChunkHit& hit : chunks_.Search(parsed, depth)) add(std::move(hit), ++rank);
  rank = 0;
  for (SemanticHit& hit : by_meaning) add(ChunkOf(std::move(hit)), ++rank);
  std::vector<Fused> ranked;
  ranked.reserve(fused.size());
  for (auto& [identity, entry] : fused) ranked.push_back(std::move(entry));
  std::stable_sort(ranked.begin(), ranked.end(), [](const Fused& a, const Fused& b) {
    return a.score > b.score;  // ties keep (document, text) order
  });
  if (std::ssize(ranked) > count) ranked.resize(static_cast<std::size_t>(count));
  for (Fused& entry : ranked) {
    entry.chunk.score = entry.score;
    results.items.push_back(HitOf(std::move(entry.chunk), parsed));
  }
  return results;
}

}  // namespace docgate
