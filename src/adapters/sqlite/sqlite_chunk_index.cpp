#include "adapters/sqlite/sqlite_chunk_index.h"

#include <utility>

#include "adapters/sqlite/sqlite_fts_query.h"
#include "adapters/sqlite/sqlite_rows.h"
#include "adapters/sqlite/sqlite_session.h"

namespace docgate {
namespace {

using namespace sqlite_rows;  // shared rows and binders (sqlite_rows.h)

constexpr std::string_view kDeleteChunks = "DELETE FROM kh_document_chunk WHERE document_id = ?1";
constexpr std::string_view kInsertChunk =
    "INSERT INTO kh_document_chunk (document_id, ordinal, version, title, content, text_key)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
constexpr std::string_view kKeysOfChunks =
    "SELECT DISTINCT text_key FROM kh_document_chunk WHERE document_id = ?1 AND text_key IS NOT "
    "NULL";
// The embeddings of ?1 become orphans (now, in epoch millis) unless a chunk still has the key.
constexpr std::string_view kMarkOrphans =
    "UPDATE kh_embedding SET orphaned_at = CAST((julianday('now') - 2440587.5) * 86400000 AS "
    "INTEGER)"
    " WHERE text_key = ?1 AND orphaned_at IS NULL"
    " AND NOT EXISTS (SELECT 1 FROM kh_document_chunk WHERE text_key = ?1)";
constexpr std::string_view kAdoptOrphans =
    "UPDATE kh_embedding SET orphaned_at = NULL WHERE text_key = ?1 AND orphaned_at IS NOT NULL";
constexpr std::string_view kListChunks =
    "SELECT content FROM kh_document_chunk WHERE document_id = ?1 ORDER BY "
    "ordinal";
// ?1 an FTS5 query built by FtsQuery, ?2 the limit, ?3 the most chunks of one document (1: its
// best, the first of equals). bm25 is lower for better matches; its column weights are title 2.5,
// content 1.0.
constexpr std::string_view kSearch =
    "SELECT document_id, version, title, content, ordinal, score FROM ("
    " SELECT *, row_number() OVER (PARTITION BY document_id ORDER BY score DESC, ordinal) AS nth"
    " FROM (SELECT c.document_id, c.version, c.title, c.content, c.ordinal,"
    "   -bm25(kh_document_chunk_fts, 2.5, 1.0) AS score"
    "   FROM kh_document_chunk_fts"
    "   JOIN kh_document_chunk c ON c.id = kh_document_chunk_fts.rowid"
    "   JOIN kh_document d ON d.id = c.document_id AND d.approved_version = c.version"
    "   WHERE kh_document_chunk_fts MATCH ?1))"
    " WHERE nth <= ?3 ORDER BY score DESC, document_id, ordinal LIMIT ?2";

ChunkHit HitFromRow(const SqliteStatement& row) {
  return ChunkHit{row.Int64(0), row.Int32(1),  row.Text(2),
                  row.Text(3),  row.Double(5), row.Int32(4)};
}

}  // namespace

SqliteChunkIndex::SqliteChunkIndex(std::shared_ptr<SqliteSession> session)
    : session_(std::move(session)) {}

void SqliteChunkIndex::Replace(SqliteWork& work, DocumentId id, std::int32_t version,
                               const std::string& title, const std::vector<std::string>& chunks,
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
        .Bind(5, chunks[i]);
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
  return session_->ReadAll(kSearch, &HitFromRow, FtsQuery(query), NonNegative(limit),
                           NonNegative(per_document));
}

std::vector<std::string> SqliteChunkIndex::ListChunks(DocumentId id) {
  return session_->ReadAll(kListChunks, &TextFromRow, id);
}

}  // namespace docgate
