#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "app/ports/chunk_index.h"

namespace docgate {

class SqliteSession;
class SqliteWork;

// ChunkIndex on SQLite (kh_document_chunk and its FTS5 index), over a SqliteSession shared with
// the file's other stores; its SQL is in sqlite_chunk_index.cpp.
//
// Full-text search is FTS5 over the chunks' title and content (external content), tokenized by
// docgate's text analyzer (the tokenizer `docgate`, sqlite_tokenizer.h). The user's text is never
// FTS5 syntax: each phrase of the query (ParseSearchQuery) is an FTS5 string, `"` doubled, which
// FTS5 hands to the same analyzer (FtsQuery), so operators, column filters, `*`, `^` and
// parentheses are matched as the words they contain and no input raises a syntax error. Hits are
// ranked by docgate's BM25 (app/search_ranking.h, the FTS5 function docgate_bm25 of
// sqlite_bm25.h) with the phrases' chunk counts from the index's vocabulary (fts5vocab, migration
// 0011); only the chunks holding the plan's finders are scored (MaxScore pruning), and the text,
// version and document of the best of them only are read. A document's best chunk is chosen by a
// window over the hits.
//
// Thread-safe.
class SqliteChunkIndex final : public ChunkIndex {
 public:
  explicit SqliteChunkIndex(std::shared_ptr<SqliteSession> session);

  // Ingestion's part of a consumer transaction (ConsumerTransaction::ReplaceChunks): the
  // document's chunks become exactly `chunks`, in order.
  static void Replace(SqliteWork& work, DocumentId id, std::int32_t version,
                      const std::string& title, const std::vector<std::string>& chunks,
                      const std::vector<std::string>& sections,
                      const std::vector<std::string>& text_keys);

  std::vector<ChunkHit> Search(const SearchQuery& query, int limit,
                               SearchGrouping grouping) override;
  std::vector<std::string> ListChunks(DocumentId id) override;

 private:
  std::shared_ptr<SqliteSession> session_;
};

}  // namespace docgate
