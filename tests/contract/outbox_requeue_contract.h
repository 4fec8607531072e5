#pragma once

// The contract of the outbox's replay side (OutboxStore::Requeue and FindStuckIngestions,
// app/ports/outbox_store.h) and of the retention rule that serves the reconciler (PruneDelivered keeps
// an approval until its version is ingested). Instantiate with a factory of DocumentStoreContract.

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "contract/consumer_contract_fixture.h"
#include "core/error.h"

namespace docgate {

template <typename Factory>
class OutboxRequeueContract : public ConsumerContractFixture<Factory> {};

TYPED_TEST_SUITE_P(OutboxRequeueContract);

TYPED_TEST_P(OutboxRequeueContract, RequeueMakesADeliveredEventPendingAgainWithItsSequence) {
  this->Append({ContractEvent("e-1", 1)});
  const std::vector<OutboxEvent> claimed = this->outbox().ClaimPending(10);
  ASSERT_EQ(claimed.size(), 1u);
  this->outbox().MarkDelivered({claimed[0].sequence}, ContractTime(90));
  ASSERT_TRUE(this->outbox().ClaimPending(10).empty());
  this->outbox().Requeue(claimed[0]);
  EXPECT_EQ(this->outbox().ClaimPending(10), claimed);
  EXPECT_EQ(this->outbox().Backlog().pending, 1);
}

TYPED_TEST_P(OutboxRequeueContract, RequeueMakesADeferredEventDueAtOnce) {
  this->Append({ContractEvent("e-1", 1)});
  const std::vector<OutboxEvent> claimed = this->outbox().ClaimPending(10);
  ASSERT_EQ(claimed.size(), 1u);
  this->outbox().Defer({claimed[0].sequence}, std::chrono::hours(1), std::chrono::hours(1), "no");
  ASSERT_TRUE(this->outbox().ClaimPending(10).empty());
  this->outbox().Requeue(claimed[0]);
  EXPECT_EQ(this->outbox().ClaimPending(10), claimed);
}

TYPED_TEST_P(OutboxRequeueContract, RequeueWritesAPrunedEventAgainWithTheSameEventId) {
  OutboxEvent event = ContractEvent("e-1", 1);
  event.actor_id = "bob";
  event.review_id = 40;
  this->Append({event});
  const std::vector<OutboxEvent> claimed = this->outbox().ClaimPending(10);
  ASSERT_EQ(claimed.size(), 1u);
  this->outbox().MarkDelivered({claimed[0].sequence}, ContractTime(90));
  ASSERT_EQ(this->outbox().PruneDelivered(ContractTime(100), 10), 1);
  this->outbox().Requeue(claimed[0]);
  const std::vector<OutboxEvent> again = this->outbox().ClaimPending(10);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_GT(again[0].sequence, claimed[0].sequence);
  OutboxEvent expected = claimed[0];
  expected.sequence = again[0].sequence;
  EXPECT_EQ(again[0], expected);
  EXPECT_EQ(this->outbox().Backlog().pending, 1);
}

TYPED_TEST_P(OutboxRequeueContract,
             FindStuckIngestionsFindsDeliveredApprovalsOfVersionsNotIngested) {
  const TimePoint cutoff = ContractTime(1000);
  const Document pending_old = this->AddDocument(2, IngestStatus::kPending);
  const Document none_old = this->AddDocument(1, IngestStatus::kNone);
  const Document twice = this->AddDocument(3, IngestStatus::kPending);
  const Document pending_recent = this->AddDocument(1, IngestStatus::kPending);
  const Document undelivered = this->AddDocument(1, IngestStatus::kPending);
  const Document done = this->AddDocument(1, IngestStatus::kDone);
  const Document failed = this->AddDocument(1, IngestStatus::kFailed);
  const Document older_version = this->AddDocument(2, IngestStatus::kPending);
  const Document never_approved = this->AddDocument();

  this->Append({ContractApproval("a-none", none_old.id, 1)});
  this->DeliverAll(ContractTime(1));
  this->Append(
      {ContractApproval("a-twice-1", twice.id, 3), ContractApproval("a-twice-2", twice.id, 3)});
  this->DeliverAll(ContractTime(3));
  this->Append({ContractApproval("a-pending", pending_old.id, 2),
                ContractApproval("a-done", done.id, 1), ContractApproval("a-failed", failed.id, 1),
                ContractApproval("a-older", older_version.id, 1),
                ContractEvent("s-never", never_approved.id)});
  this->DeliverAll(ContractTime(5));
  this->Append({ContractApproval("a-recent", pending_recent.id, 1)});
  this->DeliverAll(ContractTime(1000));
  this->Append({ContractApproval("a-undelivered", undelivered.id, 1)});

  EXPECT_EQ(this->EventIds(this->outbox().FindStuckIngestions(cutoff, 10)),
            (std::vector<std::string>{"a-none", "a-twice-2", "a-pending"}));
  EXPECT_EQ(this->EventIds(this->outbox().FindStuckIngestions(cutoff, 2)),
            (std::vector<std::string>{"a-none", "a-twice-2"}));
  EXPECT_EQ(this->EventIds(this->outbox().FindStuckIngestions(ContractTime(1001), 10)),
            (std::vector<std::string>{"a-none", "a-twice-2", "a-pending", "a-recent"}));
  EXPECT_TRUE(this->outbox().FindStuckIngestions(ContractTime(1), 10).empty());
  EXPECT_TRUE(this->outbox().FindStuckIngestions(cutoff, 0).empty());

  const std::vector<OutboxEvent> found = this->outbox().FindStuckIngestions(cutoff, 1);
  ASSERT_EQ(found.size(), 1u);
  OutboxEvent expected = ContractApproval("a-none", none_old.id, 1);
  expected.sequence = found[0].sequence;
  EXPECT_EQ(found[0], expected);
  EXPECT_GT(found[0].sequence, 0);
}

TYPED_TEST_P(OutboxRequeueContract, FindStuckIngestionsSkipsAVersionWhoseNewestApprovalWaits) {
  const Document doc = this->AddDocument(2, IngestStatus::kPending);
  this->Append({ContractApproval("a-1", doc.id, 2)});
  this->DeliverAll(ContractTime(1));
  this->Append({ContractApproval("a-2", doc.id, 2)});
  EXPECT_TRUE(this->outbox().FindStuckIngestions(ContractTime(1000), 10).empty());
}

// A version whose chunks are written is ingested; pending, it waits for its vectors (ADR 0010).
TYPED_TEST_P(OutboxRequeueContract, FindStuckIngestionsSkipsAVersionWhoseChunksAreWritten) {
  const Document chunked = this->AddDocument(2, IngestStatus::kPending);
  const Document chunked_before = this->AddDocument(2, IngestStatus::kPending);
  this->Append({ContractApproval("a-chunked", chunked.id, 2),
                ContractApproval("a-chunked-before", chunked_before.id, 2)});
  this->DeliverAll(ContractTime(1));
  this->Ingest(chunked.id, 2, "审核手册", {"审核通过后建立索引。"});
  this->Ingest(chunked_before.id, 1, "审核手册", {"第一版。"});
  EXPECT_EQ(this->EventIds(this->outbox().FindStuckIngestions(ContractTime(1000), 10)),
            (std::vector<std::string>{"a-chunked-before"}));
}

TYPED_TEST_P(OutboxRequeueContract, PruneKeepsTheApprovalOfAVersionUntilItsIngestionIsDone) {
  const Document pending = this->AddDocument(2, IngestStatus::kPending);
  const Document failed = this->AddDocument(1, IngestStatus::kFailed);
  const Document done = this->AddDocument(1, IngestStatus::kDone);
  this->Append(
      {ContractApproval("a-pending-v1", pending.id, 1), ContractEvent("s-pending", pending.id),
       ContractApproval("a-pending-v2", pending.id, 2), ContractApproval("a-failed", failed.id, 1),
       ContractApproval("a-done", done.id, 1)});
  this->DeliverAll(ContractTime(10));
  // Deleted: the approval of an older version, another event type, an ingested version.
  EXPECT_EQ(this->outbox().PruneDelivered(ContractTime(100), 10), 3);
  EXPECT_EQ(this->outbox().PruneDelivered(ContractTime(100), 10), 0);
  EXPECT_EQ(this->EventIds(this->outbox().FindStuckIngestions(ContractTime(100), 10)),
            std::vector<std::string>{"a-pending-v2"});
  this->SetIngest(pending.id, IngestStatus::kDone);
  this->SetIngest(failed.id, IngestStatus::kDone);
  EXPECT_EQ(this->outbox().PruneDelivered(ContractTime(100), 10), 2);
  EXPECT_TRUE(this->outbox().FindStuckIngestions(ContractTime(100), 10).empty());
}

REGISTER_TYPED_TEST_SUITE_P(OutboxRequeueContract,
                            RequeueMakesADeliveredEventPendingAgainWithItsSequence,
                            RequeueMakesADeferredEventDueAtOnce,
                            RequeueWritesAPrunedEventAgainWithTheSameEventId,
                            FindStuckIngestionsFindsDeliveredApprovalsOfVersionsNotIngested,
                            FindStuckIngestionsSkipsAVersionWhoseNewestApprovalWaits,
                            FindStuckIngestionsSkipsAVersionWhoseChunksAreWritten,
                            PruneKeepsTheApprovalOfAVersionUntilItsIngestionIsDone);

}  // namespace docgate
