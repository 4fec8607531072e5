#include "adapters/pg/pg_chunk_index.h"

#include <array>
#include <utility>

#include "adapters/pg/pg_rows.h"
#include "adapters/pg/pg_session.h"
#include "adapters/pg/pg_text_search.h"

namespace docgate {
namespace {

using namespace pg;
using pg_sql::Statement;

// Returns the deleted chunks' keys (NULL for a chunk without one): the embeddings that may become
// orphans.
constexpr Statement kDeleteChunks{
    "delete_chunks", "DELETE FROM kh_document_chunk WHERE document_id = $1 RETURNING text_key"};
// Every chunk of a document in one round trip: $4 the chunks, $5 their terms (TsVectorLiteral),
// $6 their text keys (shorter, or empty, leaves the rest NULL), ordinals from 0 in that order;
// the embeddings of the keys written are orphans no longer.
constexpr Statement kInsertChunks{
    "insert_chunks",
    "WITH inserted AS ("
    " INSERT INTO kh_document_chunk (document_id, ordinal, version, title, content, search_terms,"
    "   text_key)"
    " SELECT $1::bigint, (c.n - 1)::integer, $2::integer, $3::text, c.content, c.terms::tsvector,"
    "   c.text_key"
    " FROM unnest($4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS c (content, terms,"
    "   text_key, n)"
    " RETURNING text_key)"
    " UPDATE kh_embedding SET orphaned_at = NULL"
    " WHERE text_key IN (SELECT text_key FROM inserted) AND orphaned_at IS NOT NULL"};
// The embeddings of the keys $1 become orphans (now, in epoch millis) unless a chunk still has the
// key.
constexpr Statement kMarkOrphans{
    "mark_orphan_embeddings",
    "UPDATE kh_embedding e SET orphaned_at = (extract(epoch FROM clock_timestamp()) * 1000)::bigint"
    " WHERE e.text_key = ANY($1::text[]) AND e.orphaned_at IS NULL"
    " AND NOT EXISTS (SELECT 1 FROM kh_document_chunk c WHERE c.text_key = e.text_key)"};
constexpr Statement kListChunks{"list_chunks",
                                "SELECT content FROM kh_document_chunk WHERE "
                                "document_id = $1 ORDER BY ordinal"};
// $1 the query's phrases (TsQueryLiteral), $2 the limit. ts_rank_cd weighs the
// title (A) 1.0 and the content (B) 0.4.
constexpr Statement kSearch{"search_chunks",
                            "SELECT c.document_id, c.version, c.title, c.content,"
                            " ts_rank_cd(c.search_terms, q.query, 1) AS score"
                            " FROM (SELECT $1::tsquery) AS q (query)"
                            " JOIN kh_document_chunk c ON c.search_terms @@ q.query"
                            " JOIN kh_document d ON d.id = c.document_id AND d.approved_version = "
                            "c.version"
                            " ORDER BY score DESC, c.document_id, c.ordinal LIMIT $2"};

constexpr std::array kChunkStatements{kDeleteChunks, kInsertChunks, kMarkOrphans, kListChunks,
                                      kSearch};

// Chunks written before docgate analysed text (search_terms NULL, migration 0008), a batch at a
// time; SKIP LOCKED lets several docgates starting at once share the work.
constexpr std::string_view kClaimUnanalysed =
    "SELECT document_id, ordinal, title, content FROM kh_document_chunk"
    " WHERE search_terms IS NULL ORDER BY document_id, ordinal LIMIT $1 FOR UPDATE SKIP LOCKED";
constexpr std::string_view kSetTerms =
    "UPDATE kh_document_chunk SET search_terms = $3::tsvector"
    " WHERE document_id = $1 AND ordinal = $2";
constexpr int kAnalyseBatch = 500;

}  // namespace

PgChunkIndex::PgChunkIndex(std::shared_ptr<PgSession> session) : session_(std::move(session)) {}

std::span<const Statement> PgChunkIndex::Statements() { return kChunkStatements; }

void PgChunkIndex::Replace(PgWork& work, DocumentId id, std::int32_t version,
                           const std::string& title, const std::vector<std::string>& chunks,
                           const std::vector<std::string>& text_keys) {
  work.Run("replace chunks of document", id, [&](pqxx::work& w) {
    // One statement both reads the old keys and deletes their chunks: a round trip less per
    // ingestion than reading them first.
    // A key repeated (chunks of equal text) is harmless in kMarkOrphans' `= ANY`.
    std::vector<std::string> replaced;
    for (const pqxx::row& row : w.exec_prepared(kDeleteChunks.name, id)) {
      if (!row[0].is_null()) replaced.push_back(row[0].as<std::string>());
    }
    if (!chunks.empty()) {
      std::vector<std::string> terms;
      terms.reserve(chunks.size());
      for (const std::string& chunk : chunks) terms.push_back(TsVectorLiteral(title, chunk));
      w.exec_prepared(kInsertChunks.name, id, version, Checked(title), TextArray(chunks),
                      TextArray(terms), TextArray(text_keys));
    }
    // After the insert, so that a key the new chunks still have stays adopted.
    if (!replaced.empty()) w.exec_prepared(kMarkOrphans.name, TextArray(replaced));
  });
}

std::vector<ChunkHit> PgChunkIndex::Search(const SearchQuery& query, int limit) {
  if (query.empty() || limit <= 0) return {};
  return session_->Autocommit("search", [&](pqxx::transaction_base& tx) {
    return All<ChunkHit>(tx.exec_prepared(kSearch.name, TsQueryLiteral(query), limit), ToHit);
  });
}

std::int64_t PgChunkIndex::AnalyseUnanalysedChunks(pqxx::connection_base& connection) {
  std::int64_t analysed = 0;
  for (;;) {
    pqxx::work tx(connection, "analyse chunks");
    const pqxx::result batch = tx.exec_params(std::string(kClaimUnanalysed), kAnalyseBatch);
    for (const pqxx::row& row : batch) {
      tx.exec_params(std::string(kSetTerms), row[0].as<DocumentId>(), row[1].as<std::int32_t>(),
                     TsVectorLiteral(row[2].as<std::string>(), row[3].as<std::string>()));
    }
    tx.commit();
    analysed += static_cast<std::int64_t>(batch.size());
    if (batch.size() < static_cast<std::size_t>(kAnalyseBatch)) return analysed;
  }
}

std::vector<std::string> PgChunkIndex::ListChunks(DocumentId id) {
  return session_->Autocommit(
      Describe("list chunks of document", id), [&](pqxx::transaction_base& tx) {
        return All<std::string>(tx.exec_prepared(kListChunks.name, id), ToText);
      });
}

}  // namespace docgate
