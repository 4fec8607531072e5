#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "app/consumer_runner.h"
#include "core/chunker.h"

namespace docgate {

// The embedding step of ingestion, a seam with no implementation wired by default: given the
// chunks of an approved version, computes and stores their embeddings wherever vectors live.
// Called before the chunks commit, possibly more than once for one version (a retry, a replay):
// an implementation must be idempotent per (document, version), replacing what it stored for the
// document before. Throws on failure; the ingestion attempt then fails and is retried.
class ChunkEmbedder {
 public:
  virtual ~ChunkEmbedder() = default;
  virtual void Embed(DocumentId id, std::int32_t version,
                     const std::vector<std::string>& chunks) = 0;
};

// The most chunks one document may have: indexing more would hold the consumer's transaction (the
// SQLite writer slot, or a PostgreSQL row lock and the relay's thread) for too long. Chunking
// stops at the first chunk beyond it, so one event's work is bounded whatever its content.
inline constexpr std::size_t kMaxChunksPerDocument = 10000;

// On document.approved: splits the approved content into chunks, replaces the document's chunks
// (indexed for full-text search) and sets ingest_status to done, all in the inbox's transaction.
// An event for a version that is no longer the approved one changes nothing (a newer approval is
// or will be ingested). Content that makes more than kMaxChunksPerDocument chunks throws
// PermanentConsumerError: the event is parked at its first attempt. When the event is parked,
// ingest_status becomes failed.
class Ingestion final : public InboxConsumer {
 public:
  // `store` (for OnParked) and `embedder` (optional) must outlive this.
  Ingestion(InboxStore& store, ChunkerConfig chunker, ChunkEmbedder* embedder = nullptr)
      : store_(store), chunker_(chunker), embedder_(embedder) {}

  std::string_view Name() const override { return "ingestion"; }
  void Handle(const OutboxEvent& event, ConsumerTransaction& tx) override;
  void OnParked(const OutboxEvent& event) override;

 private:
  InboxStore& store_;
  ChunkerConfig chunker_;
  ChunkEmbedder* embedder_;
};

}  // namespace docgate
