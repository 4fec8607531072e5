#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "app/ports/digest.h"
#include "app/ports/embedding_store.h"
#include "app/ports/inbox_consumer.h"
#include "app/ports/inbox_store.h"
#include "core/chunker.h"

namespace docgate {

// The most chunks one document may have: indexing more would hold the consumer's transaction (the
// SQLite writer slot, or a PostgreSQL row lock and the relay's thread) for too long. Chunking
// stops at the first chunk beyond it, so one event's work is bounded whatever its content.
inline constexpr std::size_t kMaxChunksPerDocument = 10000;

// On document.approved: splits the approved content into chunks, replaces the document's chunks
// (indexed for full-text search, each with its text key: EmbeddingTextKey) and sets ingest_status,
// all in the inbox's transaction: done, or, when embeddings follow and there are chunks, pending
// until the embedding worker has their vectors (ADR 0010). The chunks whose vector is stored
// already are counted once the transaction commits (reused_vectors: the embedding cache's hits).
// An event for a version that is no longer the approved one changes nothing (a newer approval is
// or will be ingested). Content that makes more than kMaxChunksPerDocument chunks throws
// PermanentConsumerError: the event is parked at its first attempt. When the event is parked,
// ingest_status becomes failed.
class Ingestion final : public InboxConsumer {
 public:
  // `store` (for OnParked) and `digest` must outlive this. `embeddings`: the model whose vectors
  // the embedding worker computes, or nullopt when no embeddings follow ingestion.
  Ingestion(InboxStore& store, ChunkerConfig chunker, const Digest& digest,
            std::optional<EmbeddingModel> embeddings = std::nullopt)
      : store_(store), chunker_(chunker), digest_(digest), embeddings_(std::move(embeddings)) {}

  std::string_view Name() const override { return "ingestion"; }
  void Handle(const OutboxEvent& event, ConsumerTransaction& tx) override;
  void OnParked(const OutboxEvent& event) override;

  // `wanted` runs after each commit that left a version pending for its vectors (waking the
  // embedding worker). Only before the first event.
  void OnVectorsWanted(std::function<void()> wanted) { vectors_wanted_ = std::move(wanted); }

  // Chunks ingested (committed) whose vector was stored already, so that none was computed for
  // them: a paragraph shared with another document, a re-approval of unchanged text. Chunks of
  // one text that wait for their first vector together are not counted, although it is computed
  // once for them all.
  std::uint64_t reused_vectors() const { return reused_vectors_.load(); }

 private:
  InboxStore& store_;
  ChunkerConfig chunker_;
  const Digest& digest_;
  std::optional<EmbeddingModel> embeddings_;
  std::atomic<std::uint64_t> reused_vectors_{0};
  std::function<void()> vectors_wanted_;
};

}  // namespace docgate
