#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "app/chunk_index.h"

namespace docgate {

class SqliteSession;
class SqliteWork;

// ChunkIndex on SQLite (kh_document_chunk and its FTS5 index), over a SqliteSession shared with
// the file's other stores; its SQL is in sqlite_chunk_index.cpp.
//
// Full-text search is FTS5 over the chunks' title and content (external content, porter stemming
// on unicode61 words). The user's text is never FTS5 syntax: each of its words (SearchWords)
// becomes a quoted phrase, `"` doubled, and the phrases are ANDed, so operators, column filters,
// `*`, `^` and parentheses are matched as the words they contain and no input raises a syntax
// error; a word that holds no letter or digit matches anything. Hits are ranked by bm25 with the
// title weighted 2.5 times the content (the ratio of PostgreSQL's weights A and B), best first;
// the snippet is FTS5's snippet() of the chunk's content, up to 32 words around the matches, as
// plain text: no markers around the matched words and no ellipsis. Unlike PostgreSQL, stop words
// ("the", "and") are indexed and must match.
//
// Thread-safe.
class SqliteChunkIndex final : public ChunkIndex {
 public:
  explicit SqliteChunkIndex(std::shared_ptr<SqliteSession> session);

  // Ingestion's part of a consumer transaction (ConsumerTransaction::ReplaceChunks): the
  // document's chunks become exactly `chunks`, in order.
  static void Replace(SqliteWork& work, DocumentId id, std::int32_t version,
                      const std::string& title, const std::vector<std::string>& chunks);

  std::vector<SearchHit> Search(const std::string& query, int limit) override;
  std::vector<std::string> ListChunks(DocumentId id) override;

 private:
  std::shared_ptr<SqliteSession> session_;
};

}  // namespace docgate
