#include "adapters/sqlite/sqlite_chunk_index.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "adapters/sql/shared_statements.h"
#include "adapters/sqlite/sqlite_bm25.h"
#include "adapters/sqlite/sqlite_fts_query.h"
#include "adapters/sqlite/sqlite_rows.h"
#include "adapters/sqlite/sqlite_session.h"
#include "app/search_ranking.h"

namespace docgate {
namespace {

using namespace sqlite_rows;  // shared rows and binders (sqlite_rows.h)

constexpr std::string_view kDeleteChunks = "DELETE FROM kh_document_chunk WHERE document_id = ?1";
constexpr std::string_view kInsertChunk =
    "INSERT INTO kh_document_chunk (document_id, ordinal, version, title, content, text_key,"
    " section) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
constexpr std::string_view kKeysOfChunks =
    "SELECT DISTINCT text_key FROM kh_document_chunk WHERE document_id = ?1 AND text_key IS NOT "
    "NULL";
// The embeddings of ?1 become orphans (now, in epoch millis) unless a chunk still has the key.
constexpr std::string_view kMarkOrphans =
    "UPDATE kh_embedding SET orphaned_at = CAST((julianday('now') - 2440587.5) * 86400000 AS "
    "INTEGER)"
    " WHERE text_key = ?1 AND orphaned_at IS NULL"
    " AND NOT EXISTS (SELECT 1 FROM kh_document_chunk WHERE text_key = ?1)";
constexpr std::string_view kAdoptOrphans = sql::kSqlite<sql::kAdoptOrphans>;
constexpr std::string_view kListChunks = sql::kSqlite<sql::kListChunks>;
// ?1 an FTS5 query (FtsQuery), ?2 the limit, ?3 the most chunks of one document (1: its best,
// the first of equals), ?4 the coefficients of the query's phrases (sqlite_bm25.h), ?5 how many of
// the best-scored chunks are looked at (a chunk's text, version and document are read for these
// only).
constexpr std::string_view kSearch =
    "WITH best AS ("
    "  SELECT rowid AS id, docgate_bm25(kh_document_chunk_fts, ?4) AS score"
    "  FROM kh_document_chunk_fts WHERE kh_document_chunk_fts MATCH ?1"
    "  ORDER BY score DESC, rowid LIMIT ?5),"
    " ranked AS ("
    "  SELECT b.id, b.score, c.document_id, c.ordinal,"
    "   row_number() OVER (PARTITION BY c.document_id ORDER BY b.score DESC, c.ordinal) AS nth"
    "  FROM best b JOIN kh_document_chunk c ON c.id = b.id"
    "  JOIN kh_document d ON d.id = c.document_id AND d.approved_version = c.version)"
    " SELECT c.document_id, c.version, c.title, c.content, c.ordinal, r.score, c.section"
    " FROM ranked r JOIN kh_document_chunk c ON c.id = r.id"
    " WHERE r.nth <= ?3 ORDER BY r.score DESC, r.document_id, r.ordinal LIMIT ?2";
// How many chunks hold the term ?1 (fts5vocab, migration 0011), and how many there are.
constexpr std::string_view kChunksHolding =
    "SELECT doc FROM kh_document_chunk_terms WHERE term = ?1";
constexpr std::string_view kChunkCount = "SELECT count(*) FROM kh_document_chunk";

// How many chunks hold each phrase: for a phrase of several terms, the fewest of its terms' (an
// upper bound, ADR 0012).
std::vector<std::int64_t> ChunksHolding(SqliteConnection& connection, const SearchQuery& query,
                                        std::int64_t chunks) {
  std::vector<std::int64_t> holding;
  holding.reserve(query.phrases.size());
  for (const SearchPhrase& phrase : query.phrases) {
    std::int64_t fewest = chunks;
    for (const std::string& term : phrase.terms) {
      SqliteStatement count = connection.Prepare(kChunksHolding);
      count.Bind(1, term);
      fewest = std::min(fewest, count.Step() ? count.Int64(0) : 0);
    }
    holding.push_back(fewest);
  }
  return holding;
}

ChunkHit HitFromRow(const SqliteStatement& row) {
  return ChunkHit{row.Int64(0),  row.Int32(1), row.Text(2), row.Text(3),
                  row.Double(5), row.Int32(4), row.Text(6)};
}

}  // namespace

SqliteChunkIndex::SqliteChunkIndex(std::shared_ptr<SqliteSession> session)
    : session_(std::move(session)) {}

void SqliteChunkIndex::Replace(SqliteWork& work, DocumentId id, std::int32_t version,
                               const std::string& title, const std::vector<std::string>& chunks,
                               const std::vector<std::string>& sections,
                               const std::vector<std::string>& text_keys) {
  SqliteConnection& connection = work.Open();
  SqliteStatement old_keys = connection.Prepare(kKeysOfChunks);
  old_keys.Bind(1, id);
  const std::vector<std::string> replaced = AllRows(old_keys, &TextFromRow);
  connection.Prepare(kDeleteChunks).Bind(1, id).Run();
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    SqliteStatement insert = connection.Prepare(kInsertChunk);
    insert.Bind(1, id)
        .Bind(2, static_cast<std::int64_t>(i))
        .Bind(3, version)
        .Bind(4, title)
        .Bind(5, chunks[i])
        .Bind(7, i < sections.size() ? std::string_view(sections[i]) : std::string_view());
    if (i < text_keys.size()) insert.Bind(6, text_keys[i]);
    insert.Run();
  }
  for (const std::string& key : replaced) connection.Prepare(kMarkOrphans).Bind(1, key).Run();
  for (const std::string& key : text_keys) connection.Prepare(kAdoptOrphans).Bind(1, key).Run();
}

std::vector<ChunkHit> SqliteChunkIndex::Search(const SearchQuery& query, int limit,
                                               SearchGrouping grouping) {
  if (query.empty() || limit <= 0) return {};
  const int per_document = grouping == SearchGrouping::kDocument ? 1 : limit;
  SqliteConnectionPool::Lease lease = session_->Read();
  SqliteConnection& connection = *lease;
  SqliteStatement counted = connection.Prepare(kChunkCount);
  const std::int64_t chunks = counted.Step() ? counted.Int64(0) : 0;
  std::optional<SearchPlan> plan =
      PlanSearch(query, chunks, ChunksHolding(connection, query, chunks), limit);
  std::vector<ChunkHit> hits;
  while (plan) {
    std::vector<double> coefficients;
    const std::string fts = FtsQuery(query, *plan, coefficients);
    // A chunk of another version or a document's second chunk takes a place among the best:
    // more are looked at until the limit is reached or every candidate was.
    for (std::int64_t looked_at = kLookedAtPerHit * std::int64_t{limit};; looked_at *= 8) {
      SqliteStatement search = connection.Prepare(kSearch);
      search.Bind(1, fts)
          .Bind(2, NonNegative(limit))
          .Bind(3, NonNegative(per_document))
          .BindBlob(4, EncodeCoefficients(coefficients))
          .Bind(5, looked_at);
      hits = AllRows(search, &HitFromRow);
      if (hits.size() >= static_cast<std::size_t>(limit) || looked_at >= MostCandidates(*plan))
        break;
    }
    std::vector<double> scores;
    for (const ChunkHit& hit : hits) scores.push_back(hit.score);
    plan = WidenSearch(*plan, scores, limit);
  }
  return hits;
}

std::vector<std::string> SqliteChunkIndex::ListChunks(DocumentId id) {
  return session_->ReadAll(kListChunks, &TextFromRow, id);
}

}  // namespace docgate
