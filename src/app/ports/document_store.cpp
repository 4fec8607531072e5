#include "app/ports/document_store.h"

namespace docgate {

std::vector<std::optional<DocumentWithContent>> DocumentStore::FindDocumentsWithContent(
    const std::vector<std::pair<DocumentId, std::int32_t>>& wanted) {
  std::vector<std::optional<DocumentWithContent>> found;
  found.reserve(wanted.size());
  for (const auto& [id, version] : wanted) {
    auto doc = FindDocument(id);
    if (doc) {
      found.emplace_back(DocumentWithContent{std::move(*doc), FindContent(id, version)});
    } else {
      found.emplace_back(std::nullopt);
    }
  }
  return found;
}

}  // namespace docgate
