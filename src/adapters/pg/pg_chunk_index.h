#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "adapters/pg/pg_statements.h"
#include "app/chunk_index.h"

namespace docgate {

class PgSession;
class PgWork;

// ChunkIndex on PostgreSQL (kh_document_chunk), over a PgSession shared with the database's other
// stores; its SQL is in pg_chunk_index.cpp.
//
// Full-text search uses each chunk's search_vector (configuration 'english': stemming like SQLite's
// porter tokenizer, but English stop words are dropped, so a query of stop words only matches
// nothing) with the user's words given to plainto_tsquery as a bound parameter, which reads them as
// words to AND and never as operators, so no input is a syntax error. Hits are ranked by ts_rank_cd
// (title weight A 1.0, content B 0.4), best first; the snippet is ts_headline of the chunk's
// content, 12 to 32 words around the matches, as plain text: no markers around the matched words
// and no ellipsis.
//
// Thread-safe.
class PgChunkIndex final : public ChunkIndex {
 public:
  explicit PgChunkIndex(std::shared_ptr<PgSession> session);

  // The statements this store runs, for the session to prepare on every connection.
  static std::span<const pg_sql::Statement> Statements();
  // Ingestion's part of a consumer transaction (ConsumerTransaction::ReplaceChunks): the
  // document's chunks become exactly `chunks`, in order.
  static void Replace(PgWork& work, DocumentId id, std::int32_t version, const std::string& title,
                      const std::vector<std::string>& chunks);

  std::vector<SearchHit> Search(const std::string& query, int limit) override;
  std::vector<std::string> ListChunks(DocumentId id) override;

 private:
  std::shared_ptr<PgSession> session_;
};

}  // namespace docgate
