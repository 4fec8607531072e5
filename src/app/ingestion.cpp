#include "app/ingestion.h"

#include <string>

namespace docgate {
namespace {

bool IsApprovedVersion(const std::optional<Document>& doc, const OutboxEvent& event) {
  return doc && doc->approved_version == event.version;
}

}  // namespace

void Ingestion::Handle(const OutboxEvent& event, ConsumerTransaction& tx) {
  if (event.type != EventType::kApproved) return;
  const auto doc = tx.LockDocument(event.document_id);
  if (!IsApprovedVersion(doc, event)) return;
  const auto chunks = SplitIntoChunksUpTo(ContentOf(tx, event), chunker_, kMaxChunksPerDocument);
  if (!chunks) {
    throw PermanentConsumerError("the content makes more than " +
                                 std::to_string(kMaxChunksPerDocument) + " chunks of at most " +
                                 std::to_string(chunker_.max_bytes) + " bytes");
  }
  if (embedder_ != nullptr) embedder_->Embed(event.document_id, event.version, *chunks);
  tx.ReplaceChunks(event.document_id, event.version, doc->title, *chunks);
  tx.SetIngestStatus(event.document_id, IngestStatus::kDone);
}

void Ingestion::OnParked(const OutboxEvent& event) {
  if (event.type != EventType::kApproved) return;
  auto tx = store_.BeginConsumer();
  if (!IsApprovedVersion(tx->LockDocument(event.document_id), event)) return;
  tx->SetIngestStatus(event.document_id, IngestStatus::kFailed);
  tx->Commit();
}

}  // namespace docgate
