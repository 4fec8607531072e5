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

Result<std::vector<SearchHit>> ReaderService::Search(const std::string& query,
                                                     std::optional<int> limit) {
  if (auto valid = ValidateSearchQuery(query); !valid) return valid.error();
  const int count = limit.value_or(config_.default_search_limit);
  if (count < 1 || count > config_.max_search_limit) {
    return MakeError(ErrorCode::kValidation,
                     "limit must be 1.." + std::to_string(config_.max_search_limit));
  }
  return chunks_.Search(query, count);
}

}  // namespace docgate
