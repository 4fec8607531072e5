#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/search_query.h"
#include "core/model.h"

namespace docgate {

// One ranked full-text hit: a chunk of an approved, ingested version.
struct ChunkHit {
  DocumentId document_id = 0;
  std::int32_t version = 0;
  std::string title;
  std::string content;       // the chunk's whole text
  double score = 0;          // higher is better; comparable within one result only
  std::int32_t ordinal = 0;  // the chunk's place in its version, from 0
  std::string section;       // its heading path ("" in text and before a first heading)
};

// What a search answers: each document once, by its best chunk, or every chunk that matches.
enum class SearchGrouping { kDocument, kChunk };

// The read side of the chunks of ingested versions and their full-text index. Ingestion writes
// them in its consumer transaction (ConsumerTransaction::ReplaceChunks, app/ports/consumer_transaction.h), so a
// version's chunks and its inbox row commit together. Thread-safe. Throws StorageUnavailable /
// StorageError like DocumentStore.
class ChunkIndex {
 public:
  virtual ~ChunkIndex() = default;
  // Chunks in whose title or content every required phrase of `query` occurs and, without
  // required phrases, at least one optional phrase (each phrase's terms adjacent and in order, as
  // docgate's text analyzer finds them), best first: a BM25-like rank, by how many of the query's
  // phrases a chunk holds and how rare they are, title matches weighing more than content
  // matches; ties by document id, then the chunk's order. With kDocument, only the best chunk of
  // each document (the first of equals). At most `limit`; nothing for an empty query.
  virtual std::vector<ChunkHit> Search(const SearchQuery& query, int limit,
                                       SearchGrouping grouping) = 0;
  // The chunks of one document in order (for tests, the reconciler and operators).
  virtual std::vector<std::string> ListChunks(DocumentId id) = 0;
};

}  // namespace docgate
