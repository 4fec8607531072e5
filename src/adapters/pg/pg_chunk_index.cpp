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
// $1 the query (TsQueryLiteral), $2 the limit, $3 the most chunks of one document (1: its best,
// the first of equals), $4 each of the query's phrases (TsPhraseLiterals). A chunk's score is
// Okapi BM25 over the phrases (k1 1.2, b 0.75) as SQLite's bm25 computes it, with two stand-ins
// PostgreSQL's tsvector offers: a phrase's frequency is its ts_rank_cd without normalisation (the
// sum of its occurrences' weights: title A 1.0, content B 0.4) divided by 0.4, so an occurrence
// in the content counts 1 and in the title 2.5; and a chunk's length is its number of distinct
// terms, against the average over the hits. idf is ln(1 + (N - n + 0.5) / (n + 0.5)), N the
// chunks, n those holding the phrase.
constexpr Statement kSearch{
    "search_chunks",
    "WITH total AS (SELECT count(*)::float8 AS n FROM kh_document_chunk),"
    " phrases AS MATERIALIZED ("
    "  SELECT p.text::tsquery AS query,"
    "   ln(1 + (total.n - holding.n + 0.5) / (holding.n + 0.5)) AS idf"
    "  FROM unnest($4::text[]) AS p (text) CROSS JOIN total"
    "  CROSS JOIN LATERAL (SELECT count(*)::float8 AS n FROM kh_document_chunk x"
    "   WHERE x.search_terms @@ p.text::tsquery) AS holding),"
    " hits AS MATERIALIZED ("
    "  SELECT c.document_id, c.version, c.title, c.content, c.ordinal, c.search_terms,"
    "   length(c.search_terms)::float8 / avg(length(c.search_terms)) OVER () AS relative_length"
    "  FROM kh_document_chunk c"
    "  JOIN kh_document d ON d.id = c.document_id AND d.approved_version = c.version"
    "  WHERE c.search_terms @@ $1::tsquery),"
    " scored AS ("
    "  SELECT h.document_id, h.version, h.title, h.content, h.ordinal,"
    "   (SELECT sum(p.idf * f.tf * 2.2 / (f.tf + 1.2 * (0.25 + 0.75 * h.relative_length)))"
    "    FROM phrases p"
    "    CROSS JOIN LATERAL (SELECT ts_rank_cd(h.search_terms, p.query, 0) / 0.4 AS tf) AS f)"
    "   AS score"
    "  FROM hits h)"
    " SELECT document_id, version, title, content, score, ordinal FROM ("
    "  SELECT *, row_number() OVER (PARTITION BY document_id ORDER BY score DESC, ordinal) AS nth"
    "  FROM scored) AS ranked"
    " WHERE nth <= $3 ORDER BY score DESC, document_id, ordinal LIMIT $2"};

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

std::vector<ChunkHit> PgChunkIndex::Search(const SearchQuery& query, int limit,
                                           SearchGrouping grouping) {
  if (query.empty() || limit <= 0) return {};
  const int per_document = grouping == SearchGrouping::kDocument ? 1 : limit;
  return session_->Autocommit("search", [&](pqxx::transaction_base& tx) {
    return All<ChunkHit>(tx.exec_prepared(kSearch.name, TsQueryLiteral(query), limit, per_document,
                                          TextArray(TsPhraseLiterals(query))),
                         ToHit);
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
