#pragma once

// The contract of ConsumerStore and ConsumerTransaction (app/consumer_store.h), and of the outbox
// retention rule that serves it (OutboxStore::PruneDelivered), as one typed suite run against the
// fake and every real store.
//
// Instantiate it with the factory types of DocumentStoreContract (document_store_contract.h),
// whose stores also derive from ConsumerStore:
//   INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, ConsumerStoreContract, ::testing::Types<F>);
//
// The search cases hold for the fake too (see its header for how its search differs): they use
// words whose stems every engine agrees on and no stop words, whose handling differs (PostgreSQL's
// 'english' configuration drops them, SQLite and the fake keep them).

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "app/consumer_store.h"
#include "app/document_store.h"
#include "contract/document_store_contract.h"
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
class ConsumerStoreContract : public ::testing::Test {
 protected:
  using Store = typename decltype(std::declval<Factory&>().Make())::element_type;

  DocumentStore& store() { return *store_; }
  OutboxStore& outbox() { return *store_; }
  ConsumerStore& consumers() { return *store_; }

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
    auto tx = store_->Begin();
    doc.id = tx->InsertDocument(doc);
    tx->Commit();
    return doc;
  }

  void Append(const std::vector<OutboxEvent>& events) {
    auto tx = store_->Begin();
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
    auto tx = consumers().BeginConsumer();
    const InboxState state = tx->Claim(consumer, event_id, ContractTime(50));
    tx->Commit();
    return state;
  }

  // Parks `event` for `consumer` in one failure (a limit of 1) at ContractTime(at).
  void Park(const std::string& consumer, const OutboxEvent& event, std::int64_t at) {
    ASSERT_TRUE(consumers().RecordFailure(consumer, event, "boom", 1, ContractTime(at)).parked);
  }

  // Ingests `chunks` of `version` under `title`, committed.
  void Ingest(DocumentId id, std::int32_t version, const std::string& title,
              const std::vector<std::string>& chunks) {
    auto tx = consumers().BeginConsumer();
    tx->ReplaceChunks(id, version, title, chunks);
    tx->Commit();
  }

  bool Upsert(const PreviewRecord& record) {
    auto tx = consumers().BeginConsumer();
    const bool wrote = tx->UpsertPreview(record);
    tx->Commit();
    return wrote;
  }

  void SetIngest(DocumentId id, IngestStatus status) {
    auto tx = consumers().BeginConsumer();
    tx->SetIngestStatus(id, status);
    tx->Commit();
  }

  std::vector<DocumentId> HitIds(const std::string& query, int limit = 10) {
    std::vector<DocumentId> ids;
    for (const SearchHit& hit : consumers().Search(query, limit)) ids.push_back(hit.document_id);
    return ids;
  }

  static std::vector<std::string> EventIds(const std::vector<OutboxEvent>& events) {
    std::vector<std::string> ids;
    for (const OutboxEvent& event : events) ids.push_back(event.event_id);
    return ids;
  }

  std::vector<std::string> ParkedIds(int limit = 10) {
    std::vector<std::string> ids;
    for (const ParkedEvent& parked : consumers().ListParked(limit)) {
      ids.push_back(parked.consumer + "/" + parked.event.event_id);
    }
    return ids;
  }

  Factory factory_;
  std::unique_ptr<Store> store_ = factory_.Make();
};

TYPED_TEST_SUITE_P(ConsumerStoreContract);

TYPED_TEST_P(ConsumerStoreContract, ANewPairIsClaimedOnceAndThenDone) {
  EXPECT_EQ(this->ClaimCommitted("preview", "e-1"), InboxState::kNew);
  EXPECT_EQ(this->ClaimCommitted("preview", "e-1"), InboxState::kDone);
  EXPECT_EQ(this->ClaimCommitted("ingest", "e-1"), InboxState::kNew) << "the inbox is per consumer";
  EXPECT_EQ(this->ClaimCommitted("preview", "e-2"), InboxState::kNew);
}

TYPED_TEST_P(ConsumerStoreContract, ARolledBackClaimLeavesNothing) {
  {
    auto tx = this->consumers().BeginConsumer();
    EXPECT_EQ(tx->Claim("preview", "e-1", ContractTime(50)), InboxState::kNew);
  }
  EXPECT_EQ(this->ClaimCommitted("preview", "e-1"), InboxState::kNew);
}

TYPED_TEST_P(ConsumerStoreContract, AParkedPairIsClaimedAsParkedAndStaysParked) {
  this->Park("preview", ContractEvent("e-1"), 10);
  EXPECT_EQ(this->ClaimCommitted("preview", "e-1"), InboxState::kParked);
  EXPECT_EQ(this->ClaimCommitted("preview", "e-1"), InboxState::kParked);
  EXPECT_EQ(this->ParkedIds(), std::vector<std::string>{"preview/e-1"});
}

TYPED_TEST_P(ConsumerStoreContract, AClaimTurnsAFailingPairIntoDone) {
  const OutboxEvent event = ContractEvent("e-1");
  const ConsumerFailure failed =
      this->consumers().RecordFailure("preview", event, "boom", 5, ContractTime(10));
  EXPECT_EQ(failed.attempts, 1);
  EXPECT_FALSE(failed.parked);
  EXPECT_EQ(this->ClaimCommitted("preview", "e-1"), InboxState::kNew);
  EXPECT_EQ(this->ClaimCommitted("preview", "e-1"), InboxState::kDone);
  // Done is final: a later failure report changes nothing.
  const ConsumerFailure after =
      this->consumers().RecordFailure("preview", event, "late", 1, ContractTime(20));
  EXPECT_FALSE(after.parked);
  EXPECT_EQ(after.attempts, 1);
  EXPECT_EQ(this->ClaimCommitted("preview", "e-1"), InboxState::kDone);
  EXPECT_TRUE(this->consumers().ListParked(10).empty());
}

TYPED_TEST_P(ConsumerStoreContract, AClaimRolledBackAfterAFailureLeavesThePairFailing) {
  const OutboxEvent event = ContractEvent("e-1");
  this->consumers().RecordFailure("preview", event, "boom", 3, ContractTime(10));
  {
    auto tx = this->consumers().BeginConsumer();
    EXPECT_EQ(tx->Claim("preview", "e-1", ContractTime(50)), InboxState::kNew);
  }
  const ConsumerFailure second =
      this->consumers().RecordFailure("preview", event, "boom", 3, ContractTime(20));
  EXPECT_EQ(second.attempts, 2);
  EXPECT_FALSE(second.parked);
}

// The second claimant waits for the first transaction and sees its outcome.
TYPED_TEST_P(ConsumerStoreContract, AConcurrentClaimSeesDoneOnceTheFirstCommits) {
  auto first = this->consumers().BeginConsumer();
  ASSERT_EQ(first->Claim("preview", "e-1", ContractTime(50)), InboxState::kNew);
  std::optional<InboxState> second;
  std::thread other([&] { second = this->ClaimCommitted("preview", "e-1"); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // let it block, if it will
  first->Commit();
  other.join();
  EXPECT_EQ(second, InboxState::kDone);
}

TYPED_TEST_P(ConsumerStoreContract, AConcurrentClaimClaimsThePairWhenTheFirstRollsBack) {
  auto first = this->consumers().BeginConsumer();
  ASSERT_EQ(first->Claim("preview", "e-1", ContractTime(50)), InboxState::kNew);
  std::optional<InboxState> second;
  std::thread other([&] { second = this->ClaimCommitted("preview", "e-1"); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  first.reset();
  other.join();
  EXPECT_EQ(second, InboxState::kNew);
  EXPECT_EQ(this->ClaimCommitted("preview", "e-1"), InboxState::kDone);
}

TYPED_TEST_P(ConsumerStoreContract, OfConcurrentClaimsExactlyOneIsNew) {
  constexpr int kThreads = 8;
  std::atomic<int> fresh{0};
  std::atomic<int> done{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back(
        [&] { ++(this->ClaimCommitted("preview", "e-1") == InboxState::kNew ? fresh : done); });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(fresh.load(), 1);
  EXPECT_EQ(done.load(), kThreads - 1);
}

TYPED_TEST_P(ConsumerStoreContract, FailuresCountUpAndParkTheEventWholeAtTheLimit) {
  OutboxEvent event = ContractEvent("e-1", 17);
  event.sequence = 99;
  event.type = EventType::kApproved;
  event.review_id = 40;
  event.version = 3;
  event.actor_id = "bob";
  const auto fail = [&](const std::string& error, std::int64_t at) {
    return this->consumers().RecordFailure("ingest", event, error, 3, ContractTime(at));
  };
  const ConsumerFailure first = fail("timeout", 10);
  EXPECT_EQ(first.attempts, 1);
  EXPECT_FALSE(first.parked);
  EXPECT_EQ(fail("timeout", 20).attempts, 2);
  EXPECT_TRUE(this->consumers().ListParked(10).empty());
  const ConsumerFailure third = fail("disk full", 30);
  EXPECT_EQ(third.attempts, 3);
  EXPECT_TRUE(third.parked);
  // Parked is final until un-parked: a further failure is reported as it is and changes nothing.
  const ConsumerFailure fourth = fail("again", 40);
  EXPECT_EQ(fourth.attempts, 3);
  EXPECT_TRUE(fourth.parked);

  const std::vector<ParkedEvent> parked = this->consumers().ListParked(10);
  ASSERT_EQ(parked.size(), 1u);
  OutboxEvent kept = event;
  kept.sequence = 0;
  EXPECT_EQ(parked[0].consumer, "ingest");
  EXPECT_EQ(parked[0].event, kept);
  EXPECT_EQ(parked[0].attempts, 3);
  EXPECT_EQ(parked[0].last_error, "disk full");
  EXPECT_EQ(parked[0].parked_at, ContractTime(30));
}

TYPED_TEST_P(ConsumerStoreContract, FailuresArePerConsumer) {
  const OutboxEvent event = ContractEvent("e-1");
  EXPECT_EQ(this->consumers().RecordFailure("a", event, "x", 2, ContractTime(1)).attempts, 1);
  EXPECT_EQ(this->consumers().RecordFailure("b", event, "x", 2, ContractTime(2)).attempts, 1);
  EXPECT_TRUE(this->consumers().RecordFailure("a", event, "x", 2, ContractTime(3)).parked);
  EXPECT_EQ(this->ParkedIds(), std::vector<std::string>{"a/e-1"});
}

TYPED_TEST_P(ConsumerStoreContract, ListParkedIsOldestParkedFirstAndHonoursTheLimit) {
  this->Park("preview", ContractEvent("e-2", 2), 20);
  this->Park("preview", ContractEvent("e-3", 3), 30);
  this->Park("ingest", ContractEvent("e-1", 1), 10);
  this->Park("preview", ContractEvent("e-1", 1), 10);
  EXPECT_EQ(this->ParkedIds(10),
            (std::vector<std::string>{"ingest/e-1", "preview/e-1", "preview/e-2", "preview/e-3"}));
  EXPECT_EQ(this->ParkedIds(2), (std::vector<std::string>{"ingest/e-1", "preview/e-1"}));
  EXPECT_TRUE(this->consumers().ListParked(0).empty());
}

TYPED_TEST_P(ConsumerStoreContract, UnparkingOneEventFreesItForEveryConsumerAndReturnsItOnce) {
  const OutboxEvent e1 = ContractEvent("e-1", 1);
  this->Park("preview", e1, 10);
  this->Park("ingest", e1, 11);
  this->Park("preview", ContractEvent("e-2", 2), 20);
  EXPECT_EQ(this->consumers().Unpark(std::string("e-1")), std::vector<OutboxEvent>{e1});
  EXPECT_EQ(this->ParkedIds(), std::vector<std::string>{"preview/e-2"});
  EXPECT_EQ(this->ClaimCommitted("preview", "e-1"), InboxState::kNew);
  EXPECT_EQ(this->ClaimCommitted("ingest", "e-1"), InboxState::kNew);
  EXPECT_TRUE(this->consumers().Unpark(std::string("e-1")).empty());
  EXPECT_TRUE(this->consumers().Unpark(std::string("unknown")).empty());
}

TYPED_TEST_P(ConsumerStoreContract, UnparkingAllReturnsEachEventOnceOldestParkedFirst) {
  const OutboxEvent e1 = ContractEvent("e-1", 1);
  const OutboxEvent e2 = ContractEvent("e-2", 2);
  this->Park("preview", e2, 20);
  this->Park("preview", e1, 10);
  this->Park("ingest", e1, 30);
  this->consumers().RecordFailure("preview", ContractEvent("e-3", 3), "x", 5, ContractTime(5));
  this->ClaimCommitted("ingest", "e-4");
  EXPECT_EQ(this->consumers().Unpark(std::nullopt), (std::vector<OutboxEvent>{e1, e2}));
  EXPECT_TRUE(this->consumers().ListParked(10).empty());
  EXPECT_TRUE(this->consumers().Unpark(std::nullopt).empty());
  // Failing and done pairs were left alone.
  EXPECT_EQ(this->consumers()
                .RecordFailure("preview", ContractEvent("e-3", 3), "x", 5, ContractTime(6))
                .attempts,
            2);
  EXPECT_EQ(this->ClaimCommitted("ingest", "e-4"), InboxState::kDone);
}

TYPED_TEST_P(ConsumerStoreContract, RequeueMakesADeliveredEventPendingAgainWithItsSequence) {
  this->Append({ContractEvent("e-1", 1)});
  const std::vector<OutboxEvent> claimed = this->outbox().ClaimPending(10);
  ASSERT_EQ(claimed.size(), 1u);
  this->outbox().MarkDelivered({claimed[0].sequence}, ContractTime(90));
  ASSERT_TRUE(this->outbox().ClaimPending(10).empty());
  this->consumers().Requeue(claimed[0]);
  EXPECT_EQ(this->outbox().ClaimPending(10), claimed);
  EXPECT_EQ(this->outbox().Backlog().pending, 1);
}

TYPED_TEST_P(ConsumerStoreContract, RequeueMakesADeferredEventDueAtOnce) {
  this->Append({ContractEvent("e-1", 1)});
  const std::vector<OutboxEvent> claimed = this->outbox().ClaimPending(10);
  ASSERT_EQ(claimed.size(), 1u);
  this->outbox().Defer({claimed[0].sequence}, std::chrono::hours(1), std::chrono::hours(1), "no");
  ASSERT_TRUE(this->outbox().ClaimPending(10).empty());
  this->consumers().Requeue(claimed[0]);
  EXPECT_EQ(this->outbox().ClaimPending(10), claimed);
}

TYPED_TEST_P(ConsumerStoreContract, RequeueWritesAPrunedEventAgainWithTheSameEventId) {
  OutboxEvent event = ContractEvent("e-1", 1);
  event.actor_id = "bob";
  event.review_id = 40;
  this->Append({event});
  const std::vector<OutboxEvent> claimed = this->outbox().ClaimPending(10);
  ASSERT_EQ(claimed.size(), 1u);
  this->outbox().MarkDelivered({claimed[0].sequence}, ContractTime(90));
  ASSERT_EQ(this->outbox().PruneDelivered(ContractTime(100), 10), 1);
  this->consumers().Requeue(claimed[0]);
  const std::vector<OutboxEvent> again = this->outbox().ClaimPending(10);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_GT(again[0].sequence, claimed[0].sequence);
  OutboxEvent expected = claimed[0];
  expected.sequence = again[0].sequence;
  EXPECT_EQ(again[0], expected);
  EXPECT_EQ(this->outbox().Backlog().pending, 1);
}

TYPED_TEST_P(ConsumerStoreContract,
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

  EXPECT_EQ(this->EventIds(this->consumers().FindStuckIngestions(cutoff, 10)),
            (std::vector<std::string>{"a-none", "a-twice-2", "a-pending"}));
  EXPECT_EQ(this->EventIds(this->consumers().FindStuckIngestions(cutoff, 2)),
            (std::vector<std::string>{"a-none", "a-twice-2"}));
  EXPECT_EQ(this->EventIds(this->consumers().FindStuckIngestions(ContractTime(1001), 10)),
            (std::vector<std::string>{"a-none", "a-twice-2", "a-pending", "a-recent"}));
  EXPECT_TRUE(this->consumers().FindStuckIngestions(ContractTime(1), 10).empty());
  EXPECT_TRUE(this->consumers().FindStuckIngestions(cutoff, 0).empty());

  const std::vector<OutboxEvent> found = this->consumers().FindStuckIngestions(cutoff, 1);
  ASSERT_EQ(found.size(), 1u);
  OutboxEvent expected = ContractApproval("a-none", none_old.id, 1);
  expected.sequence = found[0].sequence;
  EXPECT_EQ(found[0], expected);
  EXPECT_GT(found[0].sequence, 0);
}

TYPED_TEST_P(ConsumerStoreContract, FindStuckIngestionsSkipsAVersionWhoseNewestApprovalWaits) {
  const Document doc = this->AddDocument(2, IngestStatus::kPending);
  this->Append({ContractApproval("a-1", doc.id, 2)});
  this->DeliverAll(ContractTime(1));
  this->Append({ContractApproval("a-2", doc.id, 2)});
  EXPECT_TRUE(this->consumers().FindStuckIngestions(ContractTime(1000), 10).empty());
}

TYPED_TEST_P(ConsumerStoreContract, PruneKeepsTheApprovalOfAVersionUntilItsIngestionIsDone) {
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
  EXPECT_EQ(this->EventIds(this->consumers().FindStuckIngestions(ContractTime(100), 10)),
            std::vector<std::string>{"a-pending-v2"});
  this->SetIngest(pending.id, IngestStatus::kDone);
  this->SetIngest(failed.id, IngestStatus::kDone);
  EXPECT_EQ(this->outbox().PruneDelivered(ContractTime(100), 10), 2);
  EXPECT_TRUE(this->consumers().FindStuckIngestions(ContractTime(100), 10).empty());
}

TYPED_TEST_P(ConsumerStoreContract, PruneInboxDeletesOnlyOldDoneRowsOfEventsGoneFromTheOutbox) {
  const Document doc = this->AddDocument();
  this->Append({ContractEvent("in-outbox", doc.id)});
  EXPECT_EQ(this->ClaimCommitted("preview", "old-1"), InboxState::kNew);  // at ContractTime(50)
  EXPECT_EQ(this->ClaimCommitted("ingest", "old-1"), InboxState::kNew);
  EXPECT_EQ(this->ClaimCommitted("preview", "old-2"), InboxState::kNew);
  EXPECT_EQ(this->ClaimCommitted("preview", "in-outbox"), InboxState::kNew);
  {
    auto tx = this->consumers().BeginConsumer();
    EXPECT_EQ(tx->Claim("preview", "young", ContractTime(200)), InboxState::kNew);
    tx->Commit();
  }
  this->Park("preview", ContractEvent("parked", 2), 10);
  this->consumers().RecordFailure("preview", ContractEvent("failing", 3), "x", 5, ContractTime(10));

  // Batches of the limit, then nothing left: neither the young row, nor one whose event the outbox
  // still holds, nor a parked or failing one.
  EXPECT_EQ(this->consumers().PruneInbox(ContractTime(100), 2), 2);
  EXPECT_EQ(this->consumers().PruneInbox(ContractTime(100), 2), 1);
  EXPECT_EQ(this->consumers().PruneInbox(ContractTime(100), 2), 0);
  EXPECT_EQ(this->consumers().PruneInbox(ContractTime(100), 0), 0);
  EXPECT_EQ(this->ClaimCommitted("preview", "old-1"), InboxState::kNew);  // forgotten
  EXPECT_EQ(this->ClaimCommitted("preview", "young"), InboxState::kDone);
  EXPECT_EQ(this->ClaimCommitted("preview", "in-outbox"), InboxState::kDone);
  EXPECT_EQ(this->ParkedIds(), std::vector<std::string>{"preview/parked"});
  EXPECT_EQ(this->consumers()
                .RecordFailure("preview", ContractEvent("failing", 3), "x", 5, ContractTime(20))
                .attempts,
            2);
}

TYPED_TEST_P(ConsumerStoreContract, ATransactionLocksAndReadsLikeAStoreTransaction) {
  const Document doc = this->AddDocument(1, IngestStatus::kPending);
  {
    auto tx = this->store().Begin();
    tx->PutContent(doc.id, 1, "body of v1", "alice", ContractTime());
    tx->Commit();
  }
  auto tx = this->consumers().BeginConsumer();
  EXPECT_EQ(tx->LockDocument(doc.id), doc);
  EXPECT_EQ(tx->ReadContent(doc.id, 1), "body of v1");
  EXPECT_EQ(tx->ReadContent(doc.id, 2), std::nullopt);
  EXPECT_EQ(tx->LockDocument(12345), std::nullopt);
}

TYPED_TEST_P(ConsumerStoreContract, SetIngestStatusChangesOnlyTheStatus) {
  const Document doc = this->AddDocument(1, IngestStatus::kPending);
  this->SetIngest(doc.id, IngestStatus::kDone);
  Document expected = doc;
  expected.ingest_status = IngestStatus::kDone;
  EXPECT_EQ(this->store().FindDocument(doc.id), expected);
  auto tx = this->consumers().BeginConsumer();
  EXPECT_THROW(tx->SetIngestStatus(12345, IngestStatus::kDone), StorageError);
}

TYPED_TEST_P(ConsumerStoreContract, NothingOfARolledBackTransactionRemains) {
  const Document doc = this->AddDocument(1, IngestStatus::kPending);
  {
    auto tx = this->consumers().BeginConsumer();
    tx->Claim("ingest", "e-1", ContractTime(50));
    tx->UpsertPreview(PreviewRecord{doc.id, 1, "preview", ContractTime(2)});
    tx->ReplaceChunks(doc.id, 1, "Title", {"alpha"});
    tx->SetIngestStatus(doc.id, IngestStatus::kDone);
  }
  EXPECT_EQ(this->consumers().FindPreview(doc.id), std::nullopt);
  EXPECT_TRUE(this->consumers().ListChunks(doc.id).empty());
  EXPECT_TRUE(this->consumers().Search("alpha", 10).empty());
  EXPECT_EQ(this->store().FindDocument(doc.id), doc);
  EXPECT_EQ(this->ClaimCommitted("ingest", "e-1"), InboxState::kNew);
}

TYPED_TEST_P(ConsumerStoreContract, ATransactionIsUnusableAfterCommit) {
  auto tx = this->consumers().BeginConsumer();
  tx->Commit();
  EXPECT_THROW(tx->Claim("preview", "e-1", ContractTime(50)), StorageError);
  EXPECT_THROW(tx->Commit(), StorageError);
}

TYPED_TEST_P(ConsumerStoreContract, PreviewRoundTripsAndANewerVersionWins) {
  const DocumentId id = this->AddDocument(3).id;
  EXPECT_EQ(this->consumers().FindPreview(id), std::nullopt);
  const PreviewRecord v3{id, 3, "# Guide\n\xE2\x9C\x93 'v3' \"quoted\"", ContractTime(30)};
  const PreviewRecord v4{id, 4, "v4", ContractTime(40)};
  EXPECT_TRUE(this->Upsert(v3));
  EXPECT_EQ(this->consumers().FindPreview(id), v3);
  EXPECT_TRUE(this->Upsert(v4));
  EXPECT_EQ(this->consumers().FindPreview(id), v4);
}

TYPED_TEST_P(ConsumerStoreContract, AStalePreviewNeverOverwritesANewerOne) {
  const DocumentId id = this->AddDocument(4).id;
  const PreviewRecord v4{id, 4, "v4", ContractTime(40)};
  EXPECT_TRUE(this->Upsert(v4));
  EXPECT_FALSE(this->Upsert(PreviewRecord{id, 3, "v3", ContractTime(30)}));
  EXPECT_FALSE(this->Upsert(PreviewRecord{id, 4, "v4 again", ContractTime(41)}));
  EXPECT_EQ(this->consumers().FindPreview(id), v4);
}

TYPED_TEST_P(ConsumerStoreContract, PreviewsAndChunksOfAMissingDocumentAreStorageErrors) {
  EXPECT_THROW(this->consumers().BeginConsumer()->UpsertPreview(
                   PreviewRecord{12345, 1, "x", ContractTime()}),
               StorageError);
  EXPECT_THROW(this->consumers().BeginConsumer()->ReplaceChunks(12345, 1, "T", {"x"}),
               StorageError);
}

TYPED_TEST_P(ConsumerStoreContract, ReplaceChunksReplacesEveryChunkAndNeverAppends) {
  const DocumentId id = this->AddDocument(2).id;
  this->Ingest(id, 2, "Guide", {"alpha apples", "bravo bananas", "charlie cherries"});
  EXPECT_EQ(this->consumers().ListChunks(id),
            (std::vector<std::string>{"alpha apples", "bravo bananas", "charlie cherries"}));
  EXPECT_EQ(this->HitIds("bananas"), std::vector<DocumentId>{id});
  this->Ingest(id, 2, "Guide", {"delta dates", "echo elderberries"});
  EXPECT_EQ(this->consumers().ListChunks(id),
            (std::vector<std::string>{"delta dates", "echo elderberries"}));
  EXPECT_TRUE(this->consumers().Search("bananas", 10).empty());
  EXPECT_TRUE(this->consumers().Search("cherries", 10).empty());
  EXPECT_EQ(this->HitIds("elderberries"), std::vector<DocumentId>{id});
  this->Ingest(id, 2, "Guide", {});
  EXPECT_TRUE(this->consumers().ListChunks(id).empty());
  EXPECT_TRUE(this->consumers().Search("dates", 10).empty());
  EXPECT_TRUE(this->consumers().ListChunks(12345).empty());
}

TYPED_TEST_P(ConsumerStoreContract, SearchFindsOnlyTheApprovedVersionsChunks) {
  const Document current = this->AddDocument(3);
  const Document stale = this->AddDocument(3);
  this->Ingest(current.id, 3, "Current", {"zeppelin manual"});
  this->Ingest(stale.id, 2, "Stale", {"zeppelin manual"});
  const std::vector<SearchHit> hits = this->consumers().Search("zeppelin", 10);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].document_id, current.id);
  EXPECT_EQ(hits[0].version, 3);
  EXPECT_EQ(hits[0].title, "Current");
  EXPECT_GT(hits[0].score, 0);
}

TYPED_TEST_P(ConsumerStoreContract, SearchNeedsEveryWordAndIgnoresCase) {
  const DocumentId both = this->AddDocument(1).id;
  const DocumentId one = this->AddDocument(1).id;
  this->Ingest(both, 1, "Guide", {"Kubernetes clusters need upgrades"});
  this->Ingest(one, 1, "Guide", {"kubernetes pods restart"});
  EXPECT_EQ(this->HitIds("KUBERNETES Upgrades"), std::vector<DocumentId>{both});
  EXPECT_EQ(this->consumers().Search("kubernetes", 10).size(), 2u);
  EXPECT_TRUE(this->consumers().Search("kubernetes helicopters", 10).empty());
}

TYPED_TEST_P(ConsumerStoreContract, SearchRanksTitleAndRepeatedMatchesFirst) {
  const DocumentId once = this->AddDocument(1).id;
  const DocumentId twice_and_title = this->AddDocument(1).id;
  const DocumentId unrelated = this->AddDocument(1).id;
  this->Ingest(once, 1, "Handbook", {"the onboarding checklist mentions firewalls briefly"});
  this->Ingest(twice_and_title, 1, "Firewalls",
               {"firewalls protect networks and firewalls log traffic"});
  this->Ingest(unrelated, 1, "Handbook", {"nothing relevant here at all"});
  const std::vector<SearchHit> hits = this->consumers().Search("firewalls", 10);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].document_id, twice_and_title);
  EXPECT_EQ(hits[1].document_id, once);
  EXPECT_GT(hits[0].score, hits[1].score);
}

TYPED_TEST_P(ConsumerStoreContract, SearchSnippetIsPlainTextAroundTheMatch) {
  const DocumentId id = this->AddDocument(1).id;
  this->Ingest(id, 1, "Guide",
               {"Welcome aboard. Every contributor must read the glossary before writing. "
                "Questions go to the team channel."});
  const std::vector<SearchHit> hits = this->consumers().Search("glossary", 10);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_NE(hits[0].snippet.find("glossary"), std::string::npos) << hits[0].snippet;
  EXPECT_EQ(hits[0].snippet.find('<'), std::string::npos) << hits[0].snippet;
  EXPECT_EQ(hits[0].snippet.find('['), std::string::npos) << hits[0].snippet;
}

TYPED_TEST_P(ConsumerStoreContract, SearchHonoursTheLimit) {
  for (int i = 0; i < 5; ++i) {
    this->Ingest(this->AddDocument(1).id, 1, "Guide", {"meteorology notes " + std::to_string(i)});
  }
  EXPECT_EQ(this->consumers().Search("meteorology", 10).size(), 5u);
  EXPECT_EQ(this->consumers().Search("meteorology", 2).size(), 2u);
  EXPECT_TRUE(this->consumers().Search("meteorology", 0).empty());
  EXPECT_TRUE(this->consumers().Search("meteorology", -1).empty());
}

TYPED_TEST_P(ConsumerStoreContract, SearchStemsWords) {
  const DocumentId id = this->AddDocument(1).id;
  this->Ingest(id, 1, "Process", {"every change needs a review"});
  EXPECT_EQ(this->HitIds("reviews"), std::vector<DocumentId>{id});
  EXPECT_EQ(this->HitIds("reviewing"), std::vector<DocumentId>{id});
  EXPECT_EQ(this->HitIds("changes"), std::vector<DocumentId>{id});
}

TYPED_TEST_P(ConsumerStoreContract, AnEmptyOrPunctuationOnlyQueryMatchesNothing) {
  this->Ingest(this->AddDocument(1).id, 1, "Guide", {"a chunk with words"});
  for (const std::string query : {"", " ", "\t\n", "!!!", "... --- ,,,", "\"\"", "()"}) {
    EXPECT_TRUE(this->consumers().Search(query, 10).empty()) << "'" << query << "'";
  }
}

// No input is an error: FTS5 and tsquery syntax, quotes, escapes, control and non-UTF-8 bytes.
TYPED_TEST_P(ConsumerStoreContract, HostileQueriesReturnNormally) {
  const DocumentId id = this->AddDocument(1).id;
  this->Ingest(id, 1, "Guide", {"review the proposal carefully"});
  std::string long_text;
  while (long_text.size() < 10 * 1024) long_text += "zebra\" OR* quokka:' ";
  const std::vector<std::string> nothing = {"\"",
                                            "*",
                                            "AND OR NOT",
                                            "NEAR(",
                                            "NEAR(a b, 3)",
                                            "title:x",
                                            "'",
                                            "\\",
                                            "^",
                                            "-",
                                            "+",
                                            "(",
                                            ")",
                                            "{content}:x",
                                            "\xF0\x9F\x9A\x80",
                                            "\xF0\x9F\x9A\x80\xF0\x9F\x8E\x89",
                                            "a''b",
                                            "\"unterminated",
                                            "x AND (y OR",
                                            "!x & y | z",
                                            "<->",
                                            ":*",
                                            "proposal NEAR(",
                                            std::string("\0", 1),
                                            std::string("nul\0byte", 8),
                                            "\xFF\xFE",
                                            "\xC3",
                                            "%_",
                                            long_text};
  for (const std::string& query : nothing) {
    EXPECT_TRUE(this->consumers().Search(query, 10).empty()) << query.substr(0, 40);
  }
  const std::vector<std::string> found = {"review\"",
                                          "review*",
                                          "\"review",
                                          "(review)",
                                          "review:",
                                          "^review",
                                          "review \xF0\x9F\x9A\x80",
                                          "review'",
                                          "review\\",
                                          "proposal,",
                                          "{review}",
                                          "review\xFF"};
  for (const std::string& query : found) {
    EXPECT_EQ(this->HitIds(query), std::vector<DocumentId>{id}) << query;
  }
}

REGISTER_TYPED_TEST_SUITE_P(
    ConsumerStoreContract, ANewPairIsClaimedOnceAndThenDone, ARolledBackClaimLeavesNothing,
    AParkedPairIsClaimedAsParkedAndStaysParked, AClaimTurnsAFailingPairIntoDone,
    AClaimRolledBackAfterAFailureLeavesThePairFailing, AConcurrentClaimSeesDoneOnceTheFirstCommits,
    AConcurrentClaimClaimsThePairWhenTheFirstRollsBack, OfConcurrentClaimsExactlyOneIsNew,
    FailuresCountUpAndParkTheEventWholeAtTheLimit, FailuresArePerConsumer,
    ListParkedIsOldestParkedFirstAndHonoursTheLimit,
    UnparkingOneEventFreesItForEveryConsumerAndReturnsItOnce,
    UnparkingAllReturnsEachEventOnceOldestParkedFirst,
    RequeueMakesADeliveredEventPendingAgainWithItsSequence, RequeueMakesADeferredEventDueAtOnce,
    RequeueWritesAPrunedEventAgainWithTheSameEventId,
    FindStuckIngestionsFindsDeliveredApprovalsOfVersionsNotIngested,
    FindStuckIngestionsSkipsAVersionWhoseNewestApprovalWaits,
    PruneKeepsTheApprovalOfAVersionUntilItsIngestionIsDone,
    PruneInboxDeletesOnlyOldDoneRowsOfEventsGoneFromTheOutbox,
    ATransactionLocksAndReadsLikeAStoreTransaction, SetIngestStatusChangesOnlyTheStatus,
    NothingOfARolledBackTransactionRemains, ATransactionIsUnusableAfterCommit,
    PreviewRoundTripsAndANewerVersionWins, AStalePreviewNeverOverwritesANewerOne,
    PreviewsAndChunksOfAMissingDocumentAreStorageErrors,
    ReplaceChunksReplacesEveryChunkAndNeverAppends, SearchFindsOnlyTheApprovedVersionsChunks,
    SearchNeedsEveryWordAndIgnoresCase, SearchRanksTitleAndRepeatedMatchesFirst,
    SearchSnippetIsPlainTextAroundTheMatch, SearchHonoursTheLimit, SearchStemsWords,
    AnEmptyOrPunctuationOnlyQueryMatchesNothing, HostileQueriesReturnNormally);

}  // namespace docgate
