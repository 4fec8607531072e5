#pragma once

#include <memory>

#include "app/ports/embedding_store.h"
#include "fakes/fake_database.h"

namespace docgate {

// EmbeddingStore on a FakeDatabase, shared with the database's other fakes: the chunks' keys are
// those FakeChunkWriter wrote, and settling sets the documents' ingest_status. Each call is one
// write (or read) of the whole tables, so claims serialise as on SQLite. Thread-safe.
class FakeEmbeddingStore final : public EmbeddingStore {
 public:
  explicit FakeEmbeddingStore(std::shared_ptr<FakeDatabase> database);

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
  std::shared_ptr<FakeDatabase> database_;
};

}  // namespace docgate
