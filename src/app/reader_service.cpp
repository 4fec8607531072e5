#include "app/reader_service.h"

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

Result<SearchResults> ReaderService::Search(const std::string& query, std::optional<int> limit,
                                            std::optional<SearchMode> mode) {
  if (auto valid = ValidateSearchQuery(query); !valid) return valid.error();
  const int count = limit.value_or(config_.default_search_limit);
  if (count < 1 || count > config_.max_search_limit) {
    return MakeError(ErrorCode::kValidation,
                     "limit must be 1.." + std::to_string(config_.max_search_limit));
  }
  if (mode.value_or(SearchMode::kKeyword) != SearchMode::kKeyword) {
    return MakeError(ErrorCode::kValidation,
                     "mode semantic and hybrid need embeddings, and this docgate has none "
                     "configured (DOCGATE_EMBEDDINGS_URL): use mode=keyword or leave mode out");
  }
  const SearchQuery parsed = ParseSearchQuery(query);
  SearchResults results;
  for (ChunkHit& hit : chunks_.Search(parsed, count)) {
    results.items.push_back(SearchHit{hit.document_id, hit.version, std::move(hit.title),
                                      MakeSnippet(hit.content, parsed), hit.score});
  }
  return results;
}

}  // namespace docgate
