#include "adapters/pg/pg_embedding_store.h"

#include <algorithm>
#include <array>
#include <set>
#include <string_view>
#include <utility>

#include "adapters/pg/pg_rows.h"
#include "adapters/pg/pg_session.h"
#include "adapters/sql/shared_statements.h"
#include "core/vector_bytes.h"

namespace docgate {
namespace {

using namespace pg;
using pg_sql::Statement;

// The advisory lock of stores and settlements ("docgate embeddings").
constexpr std::int64_t kEmbeddingsLock = 0x646f6367'656d6264;

// Throughout: $1 the model's name, $2 its dimensions.
constexpr Statement kChunksWithoutKey{"embeddings_chunks_without_key", sql::kChunksWithoutKey};
constexpr Statement kSetKey{"embeddings_set_key", sql::kSetKey};
constexpr Statement kAdoptOrphans{"embeddings_adopt_orphans", sql::kAdoptOrphans};
// $3 now, $4 the limit. The keys of pending approved versions' chunks with neither an embedding
// nor a live claim, with one of their texts: the first $4 such chunks, oldest document first.
constexpr Statement kWantedPending{
    "embeddings_wanted_pending",
    "SELECT DISTINCT ON (text_key) text_key, content FROM ("
    "  SELECT c.text_key, c.content FROM kh_document d"
    "  JOIN kh_document_chunk c ON c.document_id = d.id AND c.version = d.approved_version"
    "  WHERE d.ingest_status = 'pending' AND d.approved_version IS NOT NULL"
    "  AND c.text_key IS NOT NULL"
    "  AND NOT EXISTS (SELECT 1 FROM kh_embedding e"
    "    WHERE e.model = $1 AND e.dimensions = $2 AND e.text_key = c.text_key)"
    "  AND NOT EXISTS (SELECT 1 FROM kh_embedding_claim k WHERE k.model = $1"
    "    AND k.dimensions = $2 AND k.text_key = c.text_key AND k.expires_at > $3)"
    "  ORDER BY d.id, c.ordinal LIMIT $4) AS first_chunks"
    " ORDER BY text_key"};
// The same of every approved version, in key order.
constexpr Statement kWantedAll{
    "embeddings_wanted_all",
    "SELECT DISTINCT ON (c.text_key) c.text_key, c.content FROM kh_document_chunk c"
    " JOIN kh_document d ON d.id = c.document_id AND d.approved_version = c.version"
    " WHERE c.text_key IS NOT NULL"
    " AND NOT EXISTS (SELECT 1 FROM kh_embedding e"
    "   WHERE e.model = $1 AND e.dimensions = $2 AND e.text_key = c.text_key)"
    " AND NOT EXISTS (SELECT 1 FROM kh_embedding_claim k WHERE k.model = $1"
    "   AND k.dimensions = $2 AND k.text_key = c.text_key AND k.expires_at > $3)"
    " ORDER BY c.text_key LIMIT $4"};
// $3 the keys wanted, $4 the owner, $5 now, $6 the expiry: the keys claimed. A concurrent claim of
// the same key waits for the other's commit and then leaves it to its live claim.
constexpr Statement kClaim{
    "embeddings_claim",
    "INSERT INTO kh_embedding_claim (model, dimensions, text_key, owner, expires_at)"
    " SELECT $1, $2, unnest($3::text[]), $4, $6"
    " ON CONFLICT (model, dimensions, text_key)"
    " DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at"
    " WHERE kh_embedding_claim.expires_at <= $5"
    " RETURNING text_key"};
// $3 the owner, $4 the keys just claimed: those stored by another worker meanwhile go back.
constexpr Statement kDropStoredClaims{
    "embeddings_drop_stored_claims",
    "DELETE FROM kh_embedding_claim k WHERE k.model = $1 AND k.dimensions = $2"
    " AND k.owner = $3 AND k.text_key = ANY($4::text[]) AND EXISTS (SELECT 1 FROM kh_embedding e"
    "   WHERE e.model = $1 AND e.dimensions = $2 AND e.text_key = k.text_key)"
    " RETURNING k.text_key"};
constexpr Statement kLock{"embeddings_lock", "SELECT pg_advisory_xact_lock($1)"};
// $3 the key, $4 the vector or NULL, $5 the refusal or NULL. The first answer for a key stays.
constexpr Statement kInsertEmbedding{
    "embeddings_insert",
    "INSERT INTO kh_embedding (model, dimensions, text_key, vector, refusal, orphaned_at)"
    " VALUES ($1, $2, $3, $4::bytea, $5, CASE WHEN EXISTS (SELECT 1 FROM kh_document_chunk"
    "   WHERE text_key = $3) THEN NULL"
    "   ELSE (extract(epoch FROM clock_timestamp()) * 1000)::bigint END)"
    " ON CONFLICT (model, dimensions, text_key) DO NOTHING"};
// $3 the owner, $4 the keys.
constexpr Statement kDropClaims{
    "embeddings_drop_claims",
    "DELETE FROM kh_embedding_claim WHERE model = $1"
    " AND dimensions = $2 AND owner = $3 AND text_key = ANY($4::text[])"};
// $3 the limit. Pending approved versions whose every chunk has an embedding: done, or failed
// when one of them was refused. approved_version is compared again after the row lock, in case a
// new approval came in between.
constexpr Statement kSettle{
    "embeddings_settle",
    "UPDATE kh_document d"
    " SET ingest_status = CASE WHEN s.refused THEN 'failed' ELSE 'done' END"
    " FROM (SELECT p.id, p.approved_version, bool_or(e.refusal IS NOT NULL) AS refused"
    "   FROM kh_document p"
    "   JOIN kh_document_chunk c ON c.document_id = p.id AND c.version = p.approved_version"
    "   LEFT JOIN kh_embedding e"
    "     ON e.model = $1 AND e.dimensions = $2 AND e.text_key = c.text_key"
    "   WHERE p.ingest_status = 'pending' AND p.approved_version IS NOT NULL"
    "   GROUP BY p.id, p.approved_version HAVING count(e.id) = count(*)"
    "   ORDER BY p.id LIMIT $3) s"
    " WHERE d.id = s.id AND d.ingest_status = 'pending'"
    " AND d.approved_version = s.approved_version"
    " RETURNING d.id, d.ingest_status"};
constexpr Statement kCountMissing{
    "embeddings_count_missing",
    "SELECT count(DISTINCT c.text_key) FROM kh_document_chunk c"
    " JOIN kh_document d ON d.id = c.document_id AND d.approved_version = c.version"
    " WHERE c.text_key IS NOT NULL AND NOT EXISTS (SELECT 1 FROM kh_embedding e"
    "   WHERE e.model = $1 AND e.dimensions = $2 AND e.text_key = c.text_key)"};
// $1 orphaned before, $2 the limit.
constexpr Statement kPurgeOrphans{
    "embeddings_purge_orphans",
    "DELETE FROM kh_embedding WHERE id IN (SELECT e.id FROM kh_embedding e"
    " WHERE e.orphaned_at < $1"
    " AND NOT EXISTS (SELECT 1 FROM kh_document_chunk c WHERE c.text_key = e.text_key)"
    " ORDER BY e.orphaned_at LIMIT $2 FOR UPDATE SKIP LOCKED)"};
// $3 after, $4 the limit.
constexpr Statement kVectorsAfter{
    "embeddings_vectors_after",
    "SELECT id, text_key, vector FROM kh_embedding"
    " WHERE model = $1 AND dimensions = $2 AND id > $3 AND vector IS NOT NULL"
    " ORDER BY id LIMIT $4"};
constexpr Statement kVectorIds{"embeddings_vector_ids", sql::kVectorIds};

// $3 the keys: those with a vector.
constexpr Statement kKeysWithVectors{
    "embeddings_keys_with_vectors",
    "SELECT text_key FROM kh_embedding"
    " WHERE model = $1 AND dimensions = $2 AND text_key = ANY($3::text[]) AND vector IS NOT NULL"};

// $1 the keys.
constexpr Statement kApprovedChunksWithKeys{
    "embeddings_approved_chunks_with_keys",
    "SELECT c.document_id, c.version, c.ordinal, c.title, c.content, c.text_key, c.section"
    " FROM kh_document_chunk c"
    " JOIN kh_document d ON d.id = c.document_id AND d.approved_version = c.version"
    " WHERE c.text_key = ANY($1::text[])"
    " ORDER BY c.document_id, c.ordinal"};

constexpr std::array kEmbeddingStatements{kApprovedChunksWithKeys,
                                          kKeysWithVectors,
                                          kChunksWithoutKey,
                                          kSetKey,
                                          kAdoptOrphans,
                                          kWantedPending,
                                          kWantedAll,
                                          kClaim,
                                          kDropStoredClaims,
                                          kLock,
                                          kInsertEmbedding,
                                          kDropClaims,
                                          kSettle,
                                          kCountMissing,
                                          kPurgeOrphans,
                                          kVectorsAfter,
                                          kVectorIds};

void RequireDimensions(const EmbeddingModel& model, const EmbeddingResult& result) {
  if (const std::string misfit = MisfitResult(model, result); !misfit.empty()) {
    throw StorageError("postgres: " + misfit);
  }
}

// bytea's hex input format.
std::string ByteaHex(pqxx::transaction_base& tx, const std::vector<float>& vector) {
  const std::string bytes = VectorToBytes(vector);
  return tx.esc_raw(bytes);
}

std::vector<std::string> KeysOf(const std::vector<EmbeddingResult>& results) {
  std::vector<std::string> keys;
  keys.reserve(results.size());
  for (const EmbeddingResult& result : results) keys.push_back(result.text_key);
  return keys;
}

}  // namespace

PgEmbeddingStore::PgEmbeddingStore(std::shared_ptr<PgSession> session)
    : session_(std::move(session)) {}

std::span<const Statement> PgEmbeddingStore::Statements() { return kEmbeddingStatements; }

std::size_t PgEmbeddingStore::CountStoredVectorsIn(PgWork& work, const EmbeddingModel& model,
                                                   const std::vector<std::string>& text_keys) {
  if (text_keys.empty()) return 0;
  const std::vector<std::string> found = work.Run("count stored vectors", 0, [&](pqxx::work& tx) {
    return All<std::string>(tx.exec_prepared(kKeysWithVectors.name, Checked(model.name),
                                             model.dimensions, TextArray(text_keys)),
                            ToText);
  });
  const std::set<std::string_view> stored(found.begin(), found.end());
  return static_cast<std::size_t>(std::ranges::count_if(
      text_keys, [&](const std::string& key) { return stored.contains(key); }));
}

std::vector<UnkeyedChunk> PgEmbeddingStore::ChunksWithoutKey(int limit) {
  return session_->Autocommit("list chunks without key", [&](pqxx::transaction_base& tx) {
    return All<UnkeyedChunk>(
        tx.exec_prepared(kChunksWithoutKey.name, limit), [](const pqxx::row& row) {
          return UnkeyedChunk{row[0].as<DocumentId>(), row[1].as<std::int32_t>(),
                              row[2].as<std::string>()};
        });
  });
}

// Setting a key twice sets the same value: SetKeys may run twice.
void PgEmbeddingStore::SetKeys(const std::vector<ChunkKey>& keys) {
  if (keys.empty()) return;
  session_->Atomically("set chunk keys", [&](pqxx::work& tx) {
    for (const ChunkKey& key : keys) {
      tx.exec_prepared(kSetKey.name, key.document_id, key.ordinal, key.text_key);
      tx.exec_prepared(kAdoptOrphans.name, key.text_key);
    }
    return 0;
  });
}

std::vector<TextToEmbed> PgEmbeddingStore::Claim(const EmbeddingModel& model,
                                                 const std::string& owner, TimePoint now,
                                                 TimePoint until, int limit, ClaimScope scope) {
  return session_->Atomically("claim texts to embed", [&](pqxx::work& tx) {
    const Statement& wanted_now = scope == ClaimScope::kPending ? kWantedPending : kWantedAll;
    std::vector<TextToEmbed> claimed = All<TextToEmbed>(
        tx.exec_prepared(wanted_now.name, model.name, model.dimensions, Millis(now), limit),
        [](const pqxx::row& row) {
          return TextToEmbed{row[0].as<std::string>(), row[1].as<std::string>()};
        });
    if (claimed.empty()) return claimed;
    std::vector<std::string> keys;
    for (const TextToEmbed& text : claimed) keys.push_back(text.text_key);
    std::set<std::string> taken;
    for (const auto& row : tx.exec_prepared(kClaim.name, model.name, model.dimensions,
                                            TextArray(keys), owner, Millis(now), Millis(until))) {
      taken.insert(row[0].as<std::string>());
    }
    std::erase_if(claimed, [&](const TextToEmbed& text) { return !taken.contains(text.text_key); });
    if (claimed.empty()) return claimed;
    keys.clear();
    for (const TextToEmbed& text : claimed) keys.push_back(text.text_key);
    std::set<std::string> stored;
    for (const auto& row : tx.exec_prepared(kDropStoredClaims.name, model.name, model.dimensions,
                                            owner, TextArray(keys))) {
      stored.insert(row[0].as<std::string>());
    }
    std::erase_if(claimed, [&](const TextToEmbed& text) { return stored.contains(text.text_key); });
    return claimed;
  });
}

void PgEmbeddingStore::Store(const EmbeddingModel& model,
                             const std::vector<EmbeddingResult>& results,
                             const std::string& owner) {
  for (const EmbeddingResult& result : results) RequireDimensions(model, result);
  if (results.empty()) return;
  session_->Atomically("store embeddings", [&](pqxx::work& tx) {
    tx.exec_prepared(kLock.name, kEmbeddingsLock);
    for (const EmbeddingResult& result : results) {
      const bool refused = !result.refusal.empty();
      const std::string vector = refused ? std::string() : ByteaHex(tx, result.vector);
      tx.exec_prepared(kInsertEmbedding.name, model.name, model.dimensions, result.text_key,
                       refused ? nullptr : vector.c_str(),
                       refused ? Checked(result.refusal) : nullptr);
    }
    tx.exec_prepared(kDropClaims.name, model.name, model.dimensions, owner,
                     TextArray(KeysOf(results)));
    return 0;
  });
}

// Dropping a claim twice drops nothing the second time: Release may run twice.
void PgEmbeddingStore::Release(const EmbeddingModel& model, const std::string& owner,
                               const std::vector<std::string>& keys) {
  if (keys.empty()) return;
  session_->Autocommit("release embedding claims", [&](pqxx::transaction_base& tx) {
    tx.exec_prepared(kDropClaims.name, model.name, model.dimensions, owner, TextArray(keys));
    return 0;
  });
}

std::vector<SettledDocument> PgEmbeddingStore::SettleDocuments(const EmbeddingModel& model,
                                                               int limit) {
  return session_->Atomically("settle embedded documents", [&](pqxx::work& tx) {
    tx.exec_prepared(kLock.name, kEmbeddingsLock);
    return All<SettledDocument>(tx.exec_prepared(kSettle.name, model.name, model.dimensions, limit),
                                [](const pqxx::row& row) {
                                  return SettledDocument{row[0].as<DocumentId>(),
                                                         row[1].as<std::string>() == "failed"
                                                             ? IngestStatus::kFailed
                                                             : IngestStatus::kDone};
                                });
  });
}

std::int64_t PgEmbeddingStore::CountMissing(const EmbeddingModel& model) {
  return session_->Autocommit("count missing embeddings", [&](pqxx::transaction_base& tx) {
    return tx.exec_prepared(kCountMissing.name, model.name, model.dimensions)[0][0]
        .as<std::int64_t>();
  });
}

// A purge that runs twice deletes what became purgeable meanwhile, which it may.
int PgEmbeddingStore::PurgeOrphans(TimePoint before, int limit) {
  return session_->Autocommit("purge orphan embeddings", [&](pqxx::transaction_base& tx) {
    return static_cast<int>(
        tx.exec_prepared(kPurgeOrphans.name, Millis(before), limit).affected_rows());
  });
}

std::vector<StoredVector> PgEmbeddingStore::VectorsAfter(const EmbeddingModel& model,
                                                         std::int64_t after, int limit) {
  return session_->Autocommit("read embeddings", [&](pqxx::transaction_base& tx) {
    std::vector<StoredVector> vectors;
    for (const auto& row :
         tx.exec_prepared(kVectorsAfter.name, model.name, model.dimensions, after, limit)) {
      const pqxx::binarystring bytes(row[2]);
      auto vector = VectorFromBytes(std::string_view(bytes.get(), bytes.size()), model.dimensions);
      if (!vector) {
        throw StorageError("postgres: embedding " + row[0].as<std::string>() + " is not " +
                           std::to_string(model.dimensions) + " float32 values");
      }
      vectors.push_back({row[0].as<std::int64_t>(), row[1].as<std::string>(), std::move(*vector)});
    }
    return vectors;
  });
}

std::vector<std::int64_t> PgEmbeddingStore::VectorIds(const EmbeddingModel& model) {
  return session_->Autocommit("read embedding ids", [&](pqxx::transaction_base& tx) {
    return All<std::int64_t>(tx.exec_prepared(kVectorIds.name, model.name, model.dimensions),
                             [](const pqxx::row& row) { return row[0].as<std::int64_t>(); });
  });
}

std::vector<KeyedChunk> PgEmbeddingStore::ApprovedChunksWithKeys(
    const std::vector<std::string>& keys) {
  if (keys.empty()) return {};
  return session_->Autocommit("read chunks by key", [&](pqxx::transaction_base& tx) {
    return All<KeyedChunk>(tx.exec_prepared(kApprovedChunksWithKeys.name, TextArray(keys)),
                           [](const pqxx::row& row) {
                             return KeyedChunk{row[0].as<DocumentId>(),   row[1].as<std::int32_t>(),
                                               row[2].as<std::int32_t>(), row[3].as<std::string>(),
                                               row[4].as<std::string>(),  row[5].as<std::string>(),
                                               row[6].as<std::string>()};
                           });
  });
}

}  // namespace docgate
