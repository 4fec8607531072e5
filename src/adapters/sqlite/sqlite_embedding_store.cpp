#include "adapters/sqlite/sqlite_embedding_store.h"

#include <map>
#include <string_view>
#include <utility>

#include "adapters/sql/shared_statements.h"
#include "adapters/sqlite/sqlite_rows.h"
#include "adapters/sqlite/sqlite_session.h"
#include "core/vector_bytes.h"

namespace docgate {
namespace {

using namespace sqlite_rows;  // shared rows and binders (sqlite_rows.h)

// Throughout: ?1 the model's name, ?2 its dimensions.
constexpr std::string_view kChunksWithoutKey = sql::kSqlite<sql::kChunksWithoutKey>;
constexpr std::string_view kSetKey = sql::kSqlite<sql::kSetKey>;
constexpr std::string_view kAdoptOrphans = sql::kSqlite<sql::kAdoptOrphans>;
// ?3 a key: a row when it has a vector.
constexpr std::string_view kHasVector =
    "SELECT 1 FROM kh_embedding"
    " WHERE model = ?1 AND dimensions = ?2 AND text_key = ?3 AND vector IS NOT NULL";
// ?3 now, ?4 the limit. The keys of pending approved versions' chunks with neither an embedding
// nor a live claim, with one of their texts: the first ?4 such chunks, oldest document first.
constexpr std::string_view kClaimablePending =
    "SELECT text_key, MIN(content) FROM (SELECT c.text_key, c.content FROM kh_document d"
    " JOIN kh_document_chunk c ON c.document_id = d.id AND c.version = d.approved_version"
    " WHERE d.ingest_status = 'pending' AND d.approved_version IS NOT NULL"
    " AND c.text_key IS NOT NULL"
    " AND NOT EXISTS (SELECT 1 FROM kh_embedding e"
    "   WHERE e.model = ?1 AND e.dimensions = ?2 AND e.text_key = c.text_key)"
    " AND NOT EXISTS (SELECT 1 FROM kh_embedding_claim k WHERE k.model = ?1"
    "   AND k.dimensions = ?2 AND k.text_key = c.text_key AND k.expires_at > ?3)"
    " ORDER BY d.id, c.ordinal LIMIT ?4)"
    " GROUP BY text_key ORDER BY text_key";
// The same of every approved version, in key order.
constexpr std::string_view kClaimableAll =
    "SELECT c.text_key, MIN(c.content) FROM kh_document_chunk c"
    " JOIN kh_document d ON d.id = c.document_id AND d.approved_version = c.version"
    " WHERE c.text_key IS NOT NULL"
    " AND NOT EXISTS (SELECT 1 FROM kh_embedding e"
    "   WHERE e.model = ?1 AND e.dimensions = ?2 AND e.text_key = c.text_key)"
    " AND NOT EXISTS (SELECT 1 FROM kh_embedding_claim k WHERE k.model = ?1"
    "   AND k.dimensions = ?2 AND k.text_key = c.text_key AND k.expires_at > ?3)"
    " GROUP BY c.text_key ORDER BY c.text_key LIMIT ?4";
// ?3 the key, ?4 the owner, ?5 the expiry.
constexpr std::string_view kClaim =
    "INSERT INTO kh_embedding_claim (model, dimensions, text_key, owner, expires_at)"
    " VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (model, dimensions, text_key)"
    " DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at";
// ?3 the key, ?4 the vector or NULL, ?5 the refusal or NULL. The first answer for a key stays.
constexpr std::string_view kInsertEmbedding =
    "INSERT INTO kh_embedding (model, dimensions, text_key, vector, refusal, orphaned_at)"
    " VALUES (?1, ?2, ?3, ?4, ?5, CASE WHEN EXISTS (SELECT 1 FROM kh_document_chunk"
    "   WHERE text_key = ?3) THEN NULL"
    "   ELSE CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) END)"
    " ON CONFLICT (model, dimensions, text_key) DO NOTHING";
// ?3 the key, ?4 the owner.
constexpr std::string_view kDropClaim =
    "DELETE FROM kh_embedding_claim"
    " WHERE model = ?1 AND dimensions = ?2 AND text_key = ?3 AND owner = ?4";
// ?3 the limit. Pending approved versions whose every chunk has an embedding; the second column is
// 1 when one of them was refused.
constexpr std::string_view kSettleable =
    "SELECT d.id, MAX(e.refusal IS NOT NULL) FROM kh_document d"
    " JOIN kh_document_chunk c ON c.document_id = d.id AND c.version = d.approved_version"
    " LEFT JOIN kh_embedding e"
    "   ON e.model = ?1 AND e.dimensions = ?2 AND e.text_key = c.text_key"
    " WHERE d.ingest_status = 'pending' AND d.approved_version IS NOT NULL"
    " GROUP BY d.id HAVING COUNT(e.id) = COUNT(*) ORDER BY d.id LIMIT ?3";
constexpr std::string_view kSetIngestStatus = sql::kSqlite<sql::kSetIngestStatus>;
constexpr std::string_view kCountMissing =
    "SELECT COUNT(DISTINCT c.text_key) FROM kh_document_chunk c"
    " JOIN kh_document d ON d.id = c.document_id AND d.approved_version = c.version"
    " WHERE c.text_key IS NOT NULL AND NOT EXISTS (SELECT 1 FROM kh_embedding e"
    "   WHERE e.model = ?1 AND e.dimensions = ?2 AND e.text_key = c.text_key)";
// ?1 orphaned before, ?2 the limit.
constexpr std::string_view kPurgeOrphans =
    "DELETE FROM kh_embedding WHERE id IN (SELECT e.id FROM kh_embedding e"
    " WHERE e.orphaned_at < ?1"
    " AND NOT EXISTS (SELECT 1 FROM kh_document_chunk c WHERE c.text_key = e.text_key)"
    " ORDER BY e.orphaned_at LIMIT ?2)";
// ?3 after, ?4 the limit.
// The unary + keeps SQLite from choosing the (model, dimensions, text_key) index, which would read
// and sort every vector of the model for each page: the rowid range is the way.
constexpr std::string_view kVectorsAfter =
    "SELECT id, text_key, vector FROM kh_embedding"
    " WHERE +model = ?1 AND +dimensions = ?2 AND id > ?3 AND vector IS NOT NULL"
    " ORDER BY id LIMIT ?4";
constexpr std::string_view kVectorIds = sql::kSqlite<sql::kVectorIds>;

// ?1 the keys as a JSON array of strings.
constexpr std::string_view kApprovedChunksWithKeys =
    "SELECT c.document_id, c.version, c.ordinal, c.title, c.content, c.text_key, c.section"
    " FROM kh_document_chunk c"
    " JOIN kh_document d ON d.id = c.document_id AND d.approved_version = c.version"
    " WHERE c.text_key IN (SELECT value FROM json_each(?1))"
    " ORDER BY c.document_id, c.ordinal";

KeyedChunk KeyedChunkFromRow(const SqliteStatement& row) {
  return KeyedChunk{row.Int64(0), row.Int32(1), row.Int32(2), row.Text(3),
                    row.Text(4),  row.Text(5),  row.Text(6)};
}

// Keys are hex digests: nothing in them needs escaping in JSON.
std::string JsonArrayOf(const std::vector<std::string>& keys) {
  std::string array = "[";
  for (std::size_t i = 0; i < keys.size(); ++i) {
    array += (i > 0 ? ",\"" : "\"") + keys[i] + "\"";
  }
  return array + "]";
}

SqliteStatement& BindModel(SqliteStatement& stmt, const EmbeddingModel& model) {
  return stmt.Bind(1, model.name).Bind(2, static_cast<std::int64_t>(model.dimensions));
}
SqliteStatement& BindModel(SqliteStatement&& stmt, const EmbeddingModel& model) {
  return BindModel(stmt, model);
}

UnkeyedChunk UnkeyedFromRow(const SqliteStatement& row) {
  return UnkeyedChunk{row.Int64(0), row.Int32(1), row.Text(2)};
}

void RequireDimensions(const EmbeddingModel& model, const EmbeddingResult& result) {
  if (const std::string misfit = MisfitResult(model, result); !misfit.empty()) {
    throw StorageError("sqlite: " + misfit);
  }
}

}  // namespace

SqliteEmbeddingStore::SqliteEmbeddingStore(std::shared_ptr<SqliteSession> session)
    : session_(std::move(session)) {}

std::size_t SqliteEmbeddingStore::CountStoredVectorsIn(SqliteWork& work,
                                                       const EmbeddingModel& model,
                                                       const std::vector<std::string>& text_keys) {
  SqliteConnection& connection = work.Open();
  std::map<std::string_view, bool> stored;  // a key's answer, asked once
  std::size_t count = 0;
  for (const std::string& key : text_keys) {
    auto [it, fresh] = stored.try_emplace(key, false);
    if (fresh) {
      SqliteStatement has = connection.Prepare(kHasVector);
      has.Bind(1, model.name).Bind(2, model.dimensions).Bind(3, key);
      it->second = has.Step();
    }
    count += it->second ? 1 : 0;
  }
  return count;
}

std::vector<UnkeyedChunk> SqliteEmbeddingStore::ChunksWithoutKey(int limit) {
  return session_->ReadAll(kChunksWithoutKey, &UnkeyedFromRow, NonNegative(limit));
}

void SqliteEmbeddingStore::SetKeys(const std::vector<ChunkKey>& keys) {
  if (keys.empty()) return;
  session_->Atomically([&](SqliteConnection& connection) {
    for (const ChunkKey& key : keys) {
      connection.Prepare(kSetKey)
          .Bind(1, key.document_id)
          .Bind(2, static_cast<std::int64_t>(key.ordinal))
          .Bind(3, key.text_key)
          .Run();
      connection.Prepare(kAdoptOrphans).Bind(1, key.text_key).Run();
    }
  });
}

std::vector<TextToEmbed> SqliteEmbeddingStore::Claim(const EmbeddingModel& model,
                                                     const std::string& owner, TimePoint now,
                                                     TimePoint until, int limit, ClaimScope scope) {
  return session_->Atomically([&](SqliteConnection& connection) {
    SqliteStatement claimable =
        connection.Prepare(scope == ClaimScope::kPending ? kClaimablePending : kClaimableAll);
    BindModel(claimable, model);
    claimable.Bind(3, now).Bind(4, NonNegative(limit));
    std::vector<TextToEmbed> claimed;
    while (claimable.Step()) claimed.push_back({claimable.Text(0), claimable.Text(1)});
    for (const TextToEmbed& text : claimed) {
      BindModel(connection.Prepare(kClaim), model)
          .Bind(3, text.text_key)
          .Bind(4, owner)
          .Bind(5, until)
          .Run();
    }
    return claimed;
  });
}

void SqliteEmbeddingStore::Store(const EmbeddingModel& model,
                                 const std::vector<EmbeddingResult>& results,
                                 const std::string& owner) {
  for (const EmbeddingResult& result : results) RequireDimensions(model, result);
  if (results.empty()) return;
  session_->Atomically([&](SqliteConnection& connection) {
    for (const EmbeddingResult& result : results) {
      SqliteStatement insert = connection.Prepare(kInsertEmbedding);
      BindModel(insert, model);
      insert.Bind(3, result.text_key);
      if (result.refusal.empty()) {
        insert.BindBlob(4, VectorToBytes(result.vector)).BindNull(5);
      } else {
        insert.BindNull(4).Bind(5, result.refusal);
      }
      insert.Run();
      BindModel(connection.Prepare(kDropClaim), model)
          .Bind(3, result.text_key)
          .Bind(4, owner)
          .Run();
    }
  });
}

void SqliteEmbeddingStore::Release(const EmbeddingModel& model, const std::string& owner,
                                   const std::vector<std::string>& keys) {
  if (keys.empty()) return;
  session_->Atomically([&](SqliteConnection& connection) {
    for (const std::string& key : keys) {
      BindModel(connection.Prepare(kDropClaim), model).Bind(3, key).Bind(4, owner).Run();
    }
  });
}

std::vector<SettledDocument> SqliteEmbeddingStore::SettleDocuments(const EmbeddingModel& model,
                                                                   int limit) {
  return session_->Atomically([&](SqliteConnection& connection) {
    SqliteStatement settleable = connection.Prepare(kSettleable);
    BindModel(settleable, model);
    settleable.Bind(3, NonNegative(limit));
    std::vector<SettledDocument> settled;
    while (settleable.Step()) {
      settled.push_back({settleable.Int64(0),
                         settleable.Int64(1) != 0 ? IngestStatus::kFailed : IngestStatus::kDone});
    }
    for (const SettledDocument& doc : settled) {
      connection.Prepare(kSetIngestStatus).Bind(1, doc.id).Bind(2, ToString(doc.status)).Run();
    }
    return settled;
  });
}

std::int64_t SqliteEmbeddingStore::CountMissing(const EmbeddingModel& model) {
  auto lease = session_->Read();
  SqliteStatement count = lease->Prepare(kCountMissing);
  BindModel(count, model);
  return count.Step() ? count.Int64(0) : 0;
}

int SqliteEmbeddingStore::PurgeOrphans(TimePoint before, int limit) {
  return session_->Atomically([&](SqliteConnection& connection) {
    connection.Prepare(kPurgeOrphans).Bind(1, before).Bind(2, NonNegative(limit)).Run();
    return static_cast<int>(connection.Changes());
  });
}

std::vector<StoredVector> SqliteEmbeddingStore::VectorsAfter(const EmbeddingModel& model,
                                                             std::int64_t after, int limit) {
  auto lease = session_->Read();
  SqliteStatement rows = lease->Prepare(kVectorsAfter);
  BindModel(rows, model);
  rows.Bind(3, after).Bind(4, NonNegative(limit));
  std::vector<StoredVector> vectors;
  while (rows.Step()) {
    auto vector = VectorFromBytes(rows.Blob(2), model.dimensions);
    if (!vector) {
      throw StorageError("sqlite: embedding " + std::to_string(rows.Int64(0)) + " is not " +
                         std::to_string(model.dimensions) + " float32 values");
    }
    vectors.push_back({rows.Int64(0), rows.Text(1), std::move(*vector)});
  }
  return vectors;
}

std::vector<std::int64_t> SqliteEmbeddingStore::VectorIds(const EmbeddingModel& model) {
  auto lease = session_->Read();
  SqliteStatement rows = lease->Prepare(kVectorIds);
  BindModel(rows, model);
  std::vector<std::int64_t> ids;
  while (rows.Step()) ids.push_back(rows.Int64(0));
  return ids;
}

std::vector<KeyedChunk> SqliteEmbeddingStore::ApprovedChunksWithKeys(
    const std::vector<std::string>& keys) {
  if (keys.empty()) return {};
  return session_->ReadAll(kApprovedChunksWithKeys, &KeyedChunkFromRow, JsonArrayOf(keys));
}

}  // namespace docgate
