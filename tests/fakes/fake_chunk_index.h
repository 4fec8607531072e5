#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/ports/chunk_index.h"
#include "fakes/fake_database.h"

namespace docgate {

// ChunkIndex on a FakeDatabase, shared with the database's other fakes; the chunks are written in
// a consumer transaction (FakeChunkWriter). Chunks of a missing document are a StorageError, like
// the databases' foreign keys.
//
// Its full-text search matches like the engines' (docgate's text analyzer through AnalyzedText,
// app/search_query.h: every required phrase, or any optional one, in the chunk's title or content)
// and ranks by Okapi BM25 over the query's phrases as SQLite's bm25 does (k1 1.2, b 0.75, title
// matches counted 2.5 times). Only the chunks of a document's approved version are found.
//
// Thread-safe.
class FakeChunkIndex final : public ChunkIndex {
 public:
  explicit FakeChunkIndex(std::shared_ptr<FakeDatabase> database);

  std::vector<ChunkHit> Search(const SearchQuery& query, int limit,
                               SearchGrouping grouping) override;
  std::vector<std::string> ListChunks(DocumentId id) override;

 private:
  std::shared_ptr<FakeDatabase> database_;
};

// Ingestion's part of a consumer transaction (ConsumerTransaction::ReplaceChunks), on the
// transaction's copy of the tables: the document's chunks become exactly `chunks`, in order.
class FakeChunkWriter {
 public:
  explicit FakeChunkWriter(FakeTransaction& tx) : tx_(tx) {}

  void Replace(DocumentId id, std::int32_t version, const std::string& title,
               const std::vector<std::string>& chunks, const std::vector<std::string>& sections,
               const std::vector<std::string>& text_keys);

 private:
  FakeTransaction& tx_;
};

}  // namespace docgate
