#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/chunk_index.h"
#include "app/document_service.h"
#include "app/document_store.h"
#include "app/preview_store.h"
#include "app/snippet.h"
#include "core/error.h"

namespace docgate {

struct ReaderConfig {
  int default_search_limit = 10;
  int max_search_limit = 50;
};

// How a search ranks: by the words (full text), by meaning (embeddings), or both fused.
enum class SearchMode { kKeyword, kSemantic, kHybrid };

// One ranked hit of a search: a chunk of an approved, ingested version.
struct SearchHit {
  DocumentId document_id = 0;
  std::int32_t version = 0;
  std::string title;
  Snippet snippet;   // an excerpt of the chunk around its matches, and where they are in it
  double score = 0;  // higher is better; comparable within one result only
};

struct SearchResults {
  SearchMode mode = SearchMode::kKeyword;  // the mode that ran
  std::vector<SearchHit> items;
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
  // The approved versions' chunks that match `query` (ParseSearchQuery), best first. `mode`
  // defaults to keyword, the only mode there is without embeddings. VALIDATION for a bad query
  // (ValidateSearchQuery), a limit outside 1..max_search_limit, or a mode that needs embeddings.
  Result<SearchResults> Search(const std::string& query, std::optional<int> limit,
                               std::optional<SearchMode> mode = std::nullopt);

 private:
  DocumentStore& documents_;
  PreviewStore& previews_;
  ChunkIndex& chunks_;
  const ReaderConfig config_;
};

}  // namespace docgate
