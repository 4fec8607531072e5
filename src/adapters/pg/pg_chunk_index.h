#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "adapters/pg/pg_statements.h"
#include "app/chunk_index.h"

namespace pqxx {
class connection_base;
}  // namespace pqxx

namespace docgate {

class PgSession;
class PgWork;

// ChunkIndex on PostgreSQL (kh_document_chunk), over a PgSession shared with the database's other
// stores; its SQL is in pg_chunk_index.cpp.
//
// Full-text search uses each chunk's search_terms, a tsvector of docgate's text analyzer's terms
// written by docgate (pg_text_search.h) and indexed with GIN; a query's phrases become a tsquery
// of the same terms (`<->` within a phrase, `&` between required phrases, `|` between optional
// ones), bound as a parameter and built by docgate, so no user input is tsquery syntax. Hits are
// ranked by ts_rank_cd (title weight A 1.0, content B 0.4), best first; a document's best chunk
// is chosen by a window over the hits.
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
                      const std::vector<std::string>& chunks,
                      const std::vector<std::string>& text_keys);

  // Analyses every chunk whose search_terms is NULL (written before migration 0008, or by a
  // docgate older than it during a rolling upgrade); returns how many. PgSession::Migrate runs it
  // after the migrations.
  static std::int64_t AnalyseUnanalysedChunks(pqxx::connection_base& connection);

  std::vector<ChunkHit> Search(const SearchQuery& query, int limit,
                               SearchGrouping grouping) override;
  std::vector<std::string> ListChunks(DocumentId id) override;

 private:
  std::shared_ptr<PgSession> session_;
};

}  // namespace docgate
