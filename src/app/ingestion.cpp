#include "app/ingestion.h"

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
  const std::vector<std::string> chunks = SplitIntoChunks(ContentOf(tx, event), chunker_);
  if (embedder_ != nullptr) embedder_->Embed(event.document_id, event.version, chunks);
  tx.ReplaceChunks(event.document_id, event.version, doc->title, chunks);
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
