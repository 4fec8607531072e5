#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "app/ports/embedding_store.h"

namespace docgate {

class SqliteSession;
class SqliteWork;

// EmbeddingStore on SQLite (kh_embedding, kh_embedding_claim and kh_document_chunk.text_key,
// migration 0010), over a SqliteSession shared with the file's other stores; its SQL is in
// sqlite_embedding_store.cpp. Every write runs under the writer slot (BEGIN IMMEDIATE), so claims
// and stores of several workers serialise. Vectors are BLOBs of little-endian float32
// (core/vector_bytes.h). Thread-safe.
class SqliteEmbeddingStore final : public EmbeddingStore {
 public:
  explicit SqliteEmbeddingStore(std::shared_ptr<SqliteSession> session);

  // ConsumerTransaction::CountStoredVectors, within a consumer's transaction.
  static std::size_t CountStoredVectorsIn(SqliteWork& work, const EmbeddingModel& model,
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
  std::shared_ptr<SqliteSession> session_;
};

}  // namespace docgate
