#include "app/reader_service.h"

#include "core/lifecycle.h"

namespace docgate {

Result<Preview> ReaderService::GetPreview(DocumentId id) {
  if (!documents_.FindDocument(id)) {
    return MakeError(ErrorCode::kNotFound, "document " + std::to_string(id) + " not found");
  }
  auto preview = previews_.Find(id);
  if (!preview) {
    return MakeError(ErrorCode::kNotFound,
                     "document " + std::to_string(id) + " has no approved preview yet");
  }
  return Preview{preview->document_id, preview->version, std::move(preview->content),
                 preview->approved_at};
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
