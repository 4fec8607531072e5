#include "adapters/pg/pg_chunk_index.h"

#include <algorithm>
#include <array>
#include <optional>
#include <utility>

#include "adapters/pg/pg_rows.h"
#include "adapters/pg/pg_session.h"
#include "adapters/pg/pg_text_search.h"
#include "adapters/sql/shared_statements.h"
#include "app/search_ranking.h"

namespace docgate {
namespace {

using namespace pg;
using pg_sql::Statement;

// Returns the deleted chunks' keys (NULL for a chunk without one): the embeddings that may become
// orphans.
constexpr Statement kDeleteChunks{
    "delete_chunks", "DELETE FROM kh_document_chunk WHERE document_id = $1 RETURNING text_key"};
// Every chunk of a document in one round trip: $4 the chunks, $5 their terms (TsVectorLiteral),
// $6 their text keys (shorter, or empty, leaves the rest NULL), $7 their lengths in terms, $8 their
// sections (shorter, or empty, leaves the rest ""),
// ordinals from 0 in that order; the embeddings of the keys written are orphans no longer.
constexpr Statement kInsertChunks{
    "insert_chunks",
    "WITH inserted AS ("
    " INSERT INTO kh_document_chunk (document_id, ordinal, version, title, content, search_terms,"
    "   text_key, search_length, section)"
    " SELECT $1::bigint, (c.n - 1)::integer, $2::integer, $3::text, c.content, c.terms::tsvector,"
    "   c.text_key, c.length, coalesce(c.section, '')"
    " FROM unnest($4::text[], $5::text[], $6::text[], $7::integer[], $8::text[]) WITH ORDINALITY"
    "   AS c (content, terms, text_key, length, section, n)"
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
constexpr Statement kListChunks{"list_chunks", sql::kListChunks};
// $1 the finders of a plan (TsFindersLiteral), $2 the limit, $3 the most chunks of one document
// (1: its best, the first of equals), $4 each of the query's phrases (TsPhraseLiterals), $5 their
// coefficients (app/search_ranking.h), $6 the average length of a chunk, $7 how many of the
// best-scored chunks are looked at (their document and text are read). A chunk's score is
// docgate's BM25 with two stand-ins PostgreSQL's tsvector offers: a phrase's frequency is its
// ts_rank_cd without normalisation (the sum of its occurrences' weights: title A 1.0, content
// B 0.4) divided by 0.4, so an occurrence in the content counts 1 and in the title 2.5. A chunk's
// length is its number of term positions (search_length; the distinct terms of a chunk written
// before migration 0011). Only the hits' text is read.
constexpr Statement kSearch{
    "search_chunks",
    "WITH phrases AS MATERIALIZED ("
    "  SELECT p.text::tsquery AS query, p.coefficient"
    "  FROM unnest($4::text[], $5::float8[]) AS p (text, coefficient)),"
    " best AS MATERIALIZED ("
    "  SELECT c.document_id, c.ordinal, c.version,"
    "   (SELECT coalesce(sum(p.coefficient * f.tf * 2.2"
    "      / (f.tf + 1.2 * (0.25 + 0.75 * coalesce(c.search_length, length(c.search_terms))"
    "         / $6::float8))), 0)"
    "    FROM phrases p"
    "    CROSS JOIN LATERAL (SELECT ts_rank_cd(c.search_terms, p.query, 0) / 0.4 AS tf) AS f"
    "    WHERE f.tf > 0) AS score"
    "  FROM kh_document_chunk c WHERE c.search_terms @@ $1::tsquery"
    "  ORDER BY score DESC, c.document_id, c.ordinal LIMIT $7),"
    " ranked AS ("
    "  SELECT b.*,"
    "   row_number() OVER (PARTITION BY b.document_id ORDER BY b.score DESC, b.ordinal) AS nth"
    "  FROM best b JOIN kh_document d ON d.id = b.document_id AND d.approved_version = b.version)"
    " SELECT c.document_id, c.version, c.title, c.content, r.score, c.ordinal, c.section"
    " FROM ranked r JOIN kh_document_chunk c ON c.document_id = r.document_id"
    "  AND c.ordinal = r.ordinal"
    " WHERE r.nth <= $3 ORDER BY r.score DESC, r.document_id, r.ordinal LIMIT $2"};
// How many chunks hold each of the phrases $1 (tsquery literals), in order.
constexpr Statement kChunksHolding{
    "chunks_holding",
    "SELECT (SELECT count(*) FROM kh_document_chunk c WHERE c.search_terms @@ p.text::tsquery)"
    " FROM unnest($1::text[]) WITH ORDINALITY AS p (text, n) ORDER BY p.n"};
// How many chunks there are, and their average length (as kSearch counts it) from a sample of about
// 1,000 (all of them when the sample is empty): exact enough for BM25's length normalisation at
// any size. The sample is the same pages while the table is (REPEATABLE): instances rank alike.
constexpr Statement kChunkTotals{
    "chunk_totals",
    "WITH total AS (SELECT count(*) AS n FROM kh_document_chunk)"
    " SELECT total.n, coalesce("
    "  (SELECT avg(coalesce(s.search_length, length(s.search_terms))) FROM kh_document_chunk s"
    "   TABLESAMPLE SYSTEM (least(100, 100000.0 / greatest(total.n, 1))) REPEATABLE (0)),"
    "  (SELECT avg(coalesce(a.search_length, length(a.search_terms))) FROM kh_document_chunk a),"
    "  1)::float8"
    " FROM total"};

constexpr std::array kChunkStatements{kDeleteChunks, kInsertChunks,  kMarkOrphans, kListChunks,
                                      kSearch,       kChunksHolding, kChunkTotals};

// Chunks written before docgate analysed text (search_terms NULL, migration 0008), a batch at a
// time; SKIP LOCKED lets several docgates starting at once share the work.
constexpr std::string_view kClaimUnanalysed =
    "SELECT document_id, ordinal, title, content FROM kh_document_chunk"
    " WHERE search_terms IS NULL ORDER BY document_id, ordinal LIMIT $1 FOR UPDATE SKIP LOCKED";
constexpr std::string_view kSetTerms =
    "UPDATE kh_document_chunk SET search_terms = $3::tsvector, search_length = $4"
    " WHERE document_id = $1 AND ordinal = $2";
constexpr int kAnalyseBatch = 500;

}  // namespace

PgChunkIndex::PgChunkIndex(std::shared_ptr<PgSession> session) : session_(std::move(session)) {}

std::span<const Statement> PgChunkIndex::Statements() { return kChunkStatements; }

void PgChunkIndex::Replace(PgWork& work, DocumentId id, std::int32_t version,
                           const std::string& title, const std::vector<std::string>& chunks,
                           const std::vector<std::string>& sections,
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
      std::vector<std::int64_t> lengths;
      terms.reserve(chunks.size());
      for (const std::string& chunk : chunks) {
        std::int32_t length = 0;
        terms.push_back(TsVectorLiteral(title, chunk, &length));
        lengths.push_back(length);
      }
      w.exec_prepared(kInsertChunks.name, id, version, Checked(title), TextArray(chunks),
                      TextArray(terms), TextArray(text_keys), IdArray(lengths),
                      TextArray(sections));
    }
    // After the insert, so that a key the new chunks still have stays adopted.
    if (!replaced.empty()) w.exec_prepared(kMarkOrphans.name, TextArray(replaced));
  });
}

std::vector<ChunkHit> PgChunkIndex::Search(const SearchQuery& query, int limit,
                                           SearchGrouping grouping) {
  if (query.empty() || limit <= 0) return {};
  const int per_document = grouping == SearchGrouping::kDocument ? 1 : limit;
  const std::vector<std::string> phrases = TsPhraseLiterals(query);
  return session_->Autocommit("search", [&](pqxx::transaction_base& tx) {
    const Totals totals = TotalsOf(tx);
    std::optional<SearchPlan> plan = PlanSearch(query, totals.chunks, Holding(tx, phrases), limit);
    std::vector<ChunkHit> hits;
    while (plan) {
      const std::string finders = TsFindersLiteral(query, *plan);
      const std::string coefficients = FloatArray(plan->coefficient);
      // As in SQLite: more are looked at until the limit is reached or every candidate was.
      for (std::int64_t looked_at = kLookedAtPerHit * std::int64_t{limit};; looked_at *= 8) {
        hits = All<ChunkHit>(
            tx.exec_prepared(kSearch.name, finders, limit, per_document, TextArray(phrases),
                             coefficients, totals.average_length, looked_at),
            ToHit);
        if (hits.size() >= static_cast<std::size_t>(limit) || looked_at >= MostCandidates(*plan)) {
          break;
        }
      }
      std::vector<double> scores;
      for (const ChunkHit& hit : hits) scores.push_back(hit.score);
      plan = WidenSearch(*plan, scores, limit);
    }
    return hits;
  });
}

PgChunkIndex::Totals PgChunkIndex::TotalsOf(pqxx::transaction_base& tx) {
  const auto now = std::chrono::steady_clock::now();
  {
    const std::lock_guard lock(statistics_mutex_);
    if (totals_ && now < totals_->second) return totals_->first;
  }
  const pqxx::row row = tx.exec_prepared1(kChunkTotals.name);
  const Totals totals{row[0].as<std::int64_t>(), std::max(row[1].as<double>(), 1.0)};
  const std::lock_guard lock(statistics_mutex_);
  totals_.emplace(totals, now + kStatisticsLifetime);
  return totals;
}

std::vector<std::int64_t> PgChunkIndex::Holding(pqxx::transaction_base& tx,
                                                const std::vector<std::string>& phrases) {
  const auto now = std::chrono::steady_clock::now();
  std::vector<std::int64_t> holding(phrases.size(), -1);
  std::vector<std::string> missing;
  {
    const std::lock_guard lock(statistics_mutex_);
    for (std::size_t i = 0; i < phrases.size(); ++i) {
      const auto known = holding_.find(phrases[i]);
      if (known != holding_.end() && now < known->second.second) {
        holding[i] = known->second.first;
      } else {
        missing.push_back(phrases[i]);
      }
    }
  }
  if (missing.empty()) return holding;
  std::vector<std::int64_t> counted;
  for (const pqxx::row& row : tx.exec_prepared(kChunksHolding.name, TextArray(missing))) {
    counted.push_back(row[0].as<std::int64_t>());
  }
  const std::lock_guard lock(statistics_mutex_);
  if (holding_.size() > kMostKeptPhrases) holding_.clear();
  std::size_t next = 0;
  for (std::size_t i = 0; i < phrases.size(); ++i) {
    if (holding[i] >= 0 || next >= counted.size()) continue;
    holding[i] = counted[next++];
    holding_[phrases[i]] = {holding[i], now + kStatisticsLifetime};
  }
  return holding;
}

std::int64_t PgChunkIndex::AnalyseUnanalysedChunks(pqxx::connection_base& connection) {
  std::int64_t analysed = 0;
  for (;;) {
    pqxx::work tx(connection, "analyse chunks");
    const pqxx::result batch = tx.exec_params(std::string(kClaimUnanalysed), kAnalyseBatch);
    for (const pqxx::row& row : batch) {
      std::int32_t length = 0;
      std::string terms =
          TsVectorLiteral(row[2].as<std::string>(), row[3].as<std::string>(), &length);
      tx.exec_params(std::string(kSetTerms), row[0].as<DocumentId>(), row[1].as<std::int32_t>(),
                     terms, length);
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
