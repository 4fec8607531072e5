#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/model.h"

namespace docgate {

// One ranked full-text hit: a chunk of an approved, ingested version.
struct SearchHit {
  DocumentId document_id = 0;
  std::int32_t version = 0;
  std::string title;
  std::string snippet;  // an excerpt of the chunk around the matched terms, plain text
  double score = 0;     // higher is better; comparable within one result only
};

// The read side of the chunks of ingested versions and their full-text index. Ingestion writes
// them in its consumer transaction (ConsumerTransaction::ReplaceChunks, app/inbox_store.h), so a
// version's chunks and its inbox row commit together. Thread-safe. Throws StorageUnavailable /
// StorageError like DocumentStore.
class ChunkIndex {
 public:
  virtual ~ChunkIndex() = default;
  // Chunks matching the words of `query` (every word must match; case-insensitive; the engine's
  // stemming), best first, at most `limit`. An empty or all-punctuation query matches nothing.
  virtual std::vector<SearchHit> Search(const std::string& query, int limit) = 0;
  // The chunks of one document in order (for tests, the reconciler and operators).
  virtual std::vector<std::string> ListChunks(DocumentId id) = 0;
};

}  // namespace docgate
