#pragma once

// What the contract suites of the consumers' ports share (inbox_store_contract.h,
// outbox_requeue_contract.h, preview_store_contract.h, chunk_index_contract.h): a fixture over the
// factory types of DocumentStoreContract (store_contract_fixture.h), whose Stores hold those ports
// too, with helpers that set the database up through the ports.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "app/ports/chunk_index.h"
#include "app/ports/consumer_transaction.h"
#include "app/ports/document_store.h"
#include "app/ports/inbox_store.h"
#include "app/ports/outbox_store.h"
#include "app/ports/preview_store.h"
#include "app/stores.h"
#include "contract/store_contract_fixture.h"
#include "core/error.h"
#include "core/model.h"

namespace docgate {

inline OutboxEvent ContractApproval(const std::string& event_id, DocumentId id,
                                    std::int32_t version) {
  OutboxEvent event = ContractEvent(event_id, id);
  event.type = EventType::kApproved;
  event.version = version;
  return event;
}

template <typename Factory>
class ConsumerContractFixture : public ::testing::Test {
 protected:
  DocumentStore& store() { return *stores_.documents; }
  OutboxStore& outbox() { return *stores_.outbox; }
  InboxStore& inbox() { return *stores_.inbox; }
  PreviewStore& previews() { return *stores_.previews; }
  ChunkIndex& chunks() { return *stores_.chunks; }

  // A document as the review flow leaves it, committed; returns it with its id.
  Document AddDocument(std::optional<std::int32_t> approved_version = std::nullopt,
                       IngestStatus ingest = IngestStatus::kNone) {
    Document doc = ContractDocument();
    doc.approved_version = approved_version;
    doc.ingest_status = ingest;
    if (approved_version) {
      doc.status = DocumentStatus::kApproved;
      doc.version = *approved_version;
      doc.approved_at = ContractTime(1);
    }
    auto tx = store().Begin();
    doc.id = tx->InsertDocument(doc);
    tx->Commit();
    return doc;
  }

  void Append(const std::vector<OutboxEvent>& events) {
    auto tx = store().Begin();
    for (const OutboxEvent& event : events) tx->AppendEvent(event);
    tx->Commit();
  }

  // Delivers every claimable event, again and again until none is left, at `at`.
  void DeliverAll(TimePoint at) {
    for (auto batch = outbox().ClaimPending(100); !batch.empty();
         batch = outbox().ClaimPending(100)) {
      std::vector<std::int64_t> sequences;
      for (const OutboxEvent& event : batch) sequences.push_back(event.sequence);
      outbox().MarkDelivered(sequences, at);
    }
  }

  // Claims (consumer, event_id) in a transaction of its own and commits it.
  InboxState ClaimCommitted(const std::string& consumer, const std::string& event_id) {
    auto tx = inbox().BeginConsumer();
    const InboxState state = tx->Claim(consumer, event_id, ContractTime(50));
    tx->Commit();
    return state;
  }

  // Parks `event` for `consumer` in one failure (a limit of 1) at ContractTime(at).
  void Park(const std::string& consumer, const OutboxEvent& event, std::int64_t at) {
    ASSERT_TRUE(inbox().RecordFailure(consumer, event, "boom", 1, ContractTime(at)).parked);
  }

  // Ingests `chunks` of `version` under `title`, in `sections` (none: all ""), committed.
  void Ingest(DocumentId id, std::int32_t version, const std::string& title,
              const std::vector<std::string>& chunks,
              const std::vector<std::string>& sections = {}) {
    auto tx = inbox().BeginConsumer();
    tx->ReplaceChunks(id, version, title, chunks, sections, {});
    tx->Commit();
  }

  bool Upsert(const PreviewRecord& record) { return previews().Project(record); }

  void SetIngest(DocumentId id, IngestStatus status) {
    auto tx = inbox().BeginConsumer();
    tx->SetIngestStatus(id, status);
    tx->Commit();
  }

  // The chunk index's hits for a user's search text.
  std::vector<ChunkHit> Search(const std::string& text, int limit = 10,
                               SearchGrouping grouping = SearchGrouping::kChunk) {
    return chunks().Search(ParseSearchQuery(text), limit, grouping);
  }
  std::vector<DocumentId> HitIds(const std::string& text, int limit = 10) {
    std::vector<DocumentId> ids;
    for (const ChunkHit& hit : Search(text, limit)) ids.push_back(hit.document_id);
    return ids;
  }

  static std::vector<std::string> EventIds(const std::vector<OutboxEvent>& events) {
    std::vector<std::string> ids;
    for (const OutboxEvent& event : events) ids.push_back(event.event_id);
    return ids;
  }

  std::vector<std::string> ParkedIds(int limit = 10) {
    std::vector<std::string> ids;
    for (const ParkedEvent& parked : inbox().ListParked(limit)) {
      ids.push_back(parked.consumer + "/" + parked.event.event_id);
    }
    return ids;
  }

  Factory factory_;
  Stores stores_ = factory_.Make();
};

}  // namespace docgate
