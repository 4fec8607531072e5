#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "adapters/pg/pg_statements.h"
#include "app/ports/embedding_store.h"

namespace docgate {

class PgSession;
class PgWork;

// EmbeddingStore on PostgreSQL (kh_embedding, kh_embedding_claim and kh_document_chunk.text_key,
// migration 0010), over a PgSession shared with the database's other stores; its SQL is in
// pg_embedding_store.cpp.
//
// A claim inserts its keys' claim rows (a live claim of another owner wins the conflict), then
// gives back those whose embedding another worker stored meanwhile: the second statement sees
// what committed during the first, so a key is never claimed after its vector was stored. Stores
// and settlements take one advisory transaction lock (kEmbeddingsLock), so embedding ids grow in
// commit order (VectorsAfter misses none) and settlements never deadlock on document rows.
// Vectors are bytea of little-endian float32 (core/vector_bytes.h). Thread-safe.
class PgEmbeddingStore final : public EmbeddingStore {
 public:
  explicit PgEmbeddingStore(std::shared_ptr<PgSession> session);

  // The statements this store runs, for the session to prepare on every connection.
  static std::span<const pg_sql::Statement> Statements();
  // ConsumerTransaction::CountStoredVectors, within a consumer's transaction.
  static std::size_t CountStoredVectorsIn(PgWork& work, const EmbeddingModel& model,
                                          const std::vector<std::string>& text_keys);

  std::vector<UnkeyedChunk> ChunksWithoutKey(int limit) override;
  void SetKeys(const std::vector<ChunkKey>& keys) override;
  std::vector<TextToEmbed> Claim(const EmbeddingModel& model, const std::string& owner,
                                 TimePoint now, TimePoint until, int limit,
                                 ClaimScope scope) override;
  void Store(const EmbeddingModel& model, const std::vector<EmbeddingResult>& results,
             const std::string& owner) override;
  void Release(const EmbeddingModel& model, const std::string& owner,
               const std::vector<std::string>& keys) override;
  std::vector<SettledDocument> SettleDocuments(const EmbeddingModel& model, int limit) override;
  std::int64_t CountMissing(const EmbeddingModel& model) override;
  int PurgeOrphans(TimePoint before, int limit) override;
  std::vector<StoredVector> VectorsAfter(const EmbeddingModel& model, std::int64_t after,
                                         int limit) override;
  std::vector<std::int64_t> VectorIds(const EmbeddingModel& model) override;
  std::vector<KeyedChunk> ApprovedChunksWithKeys(const std::vector<std::string>& keys) override;

 private:
  std::shared_ptr<PgSession> session_;
};

}  // namespace docgate
