#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/chunk_index.h"
#include "app/document_service.h"
#include "app/document_store.h"
#include "app/preview_store.h"
#include "core/error.h"

namespace docgate {

struct ReaderConfig {
  int default_search_limit = 10;
  int max_search_limit = 50;
};

// What readers of the knowledge base get from the consumers' work: a document's preview (the
// projection of its last approval) and full-text search over ingested, approved versions.
// Thread-safe. Throws what the stores throw (StorageUnavailable, StorageError).
class ReaderService {
 public:
  // The stores must outlive the service.
  ReaderService(DocumentStore& documents, PreviewStore& previews, ChunkIndex& chunks,
                ReaderConfig config = {})
      : documents_(documents), previews_(previews), chunks_(chunks), config_(config) {}

  // The document's last approved version, or a later one. Reads its own writes:
  // once an approval has committed, its version is served even before the
  // projection has run (or while the preview store cannot be reached), from the
  // content the database keeps of every version. NOT_FOUND for an unknown
  // document and for one never approved.
  Result<Preview> GetPreview(DocumentId id);
  // VALIDATION for a bad query (ValidateSearchQuery) or a limit outside 1..max_search_limit.
  Result<std::vector<SearchHit>> Search(const std::string& query, std::optional<int> limit);

 private:
  DocumentStore& documents_;
  PreviewStore& previews_;
  ChunkIndex& chunks_;
  const ReaderConfig config_;
};

}  // namespace docgate
