#include "app/ingestion.h"

#include <string>

#include "app/consumer_runner.h"
#include "app/embedding_text_key.h"

namespace docgate {
namespace {

bool IsApprovedVersion(const std::optional<Document>& doc, const OutboxEvent& event) {
  return doc && doc->approved_version == event.version;
}

}  // namespace

void Ingestion::Handle(const OutboxEvent& event, ConsumerTransaction& tx) {
  if (event.type != EventType::kApproved) return;
  const auto approved =
      ApprovedByEvent(tx.LockDocumentWithContent(event.document_id, event.version), event);
  if (!approved) return;
  const auto chunks = SplitIntoChunksUpTo(*approved->content, chunker_, kMaxChunksPerDocument);
  if (!chunks) {
    throw PermanentConsumerError("the content makes more than " +
                                 std::to_string(kMaxChunksPerDocument) + " chunks of at most " +
                                 std::to_string(chunker_.max_bytes) + " bytes");
  }
  std::vector<std::string> keys;
  keys.reserve(chunks->size());
  for (const std::string& chunk : *chunks) keys.push_back(EmbeddingTextKey(digest_, chunk));
  tx.ReplaceChunks(event.document_id, event.version, approved->document.title, *chunks, keys);
  const bool awaits_vectors = embeddings_ && !chunks->empty();
  tx.SetIngestStatus(event.document_id,
                     awaits_vectors ? IngestStatus::kPending : IngestStatus::kDone);
  if (awaits_vectors) {
    const std::size_t reused = tx.CountStoredVectors(*embeddings_, keys);
    if (reused > 0) tx.AfterCommit([this, reused] { reused_vectors_ += reused; });
    if (vectors_wanted_) tx.AfterCommit(vectors_wanted_);
  }
}

void Ingestion::OnParked(const OutboxEvent& event) {
  if (event.type != EventType::kApproved) return;
  auto tx = store_.BeginConsumer();
  if (!IsApprovedVersion(tx->LockDocument(event.document_id), event)) return;
  tx->SetIngestStatus(event.document_id, IngestStatus::kFailed);
  tx->Commit();
}

}  // namespace docgate
