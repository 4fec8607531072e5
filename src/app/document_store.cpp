#include "app/document_store.h"

namespace docgate {

std::optional<DocumentWithContent> DocumentStore::FindDocumentWithContent(DocumentId id,
                                                                          std::int32_t version) {
  auto doc = FindDocument(id);
  if (!doc) return std::nullopt;
  return DocumentWithContent{std::move(*doc), FindContent(id, version)};
}

}  // namespace docgate
