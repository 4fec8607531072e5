#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/chunk_index.h"
#include "fakes/fake_database.h"

namespace docgate {

// ChunkIndex on a FakeDatabase, shared with the database's other fakes; the chunks are written in
// a consumer transaction (FakeChunkWriter). Chunks of a missing document are a StorageError, like
// the databases' foreign keys.
//
// Its full-text search is a stand-in for the engines' and differs from them: a word is a run of
// ASCII letters and digits and of non-ASCII code points outside U+2000..U+2BFF and below U+1F000
// (a crude "letter": no Unicode tables), compared lower-cased (ASCII only) after crude suffix
// stripping ("reviews", "reviewed", "reviewing" -> "review"; nothing like Porter's rules); every
// query word must occur in the chunk's title or content; the score is the number of occurrences,
// those in the title counted 2.5 times (no length normalisation, no rarity); the snippet is the
// content from a few words before the first match, at most about 240 bytes, plain text. There are
// no stop words, as on SQLite. Only the chunks of a document's approved version are found.
//
// Thread-safe.
class FakeChunkIndex final : public ChunkIndex {
 public:
  explicit FakeChunkIndex(std::shared_ptr<FakeDatabase> database);

  std::vector<SearchHit> Search(const std::string& query, int limit) override;
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
               const std::vector<std::string>& chunks);

 private:
  FakeTransaction& tx_;
};

}  // namespace docgate
