#pragma once

// The contract of InboxStore and ConsumerTransaction (app/ports/inbox_store.h, app/ports/consumer_transaction.h): claims, failures,
// parking and un-parking, the inbox's retention, and the consumer transaction's own reads and
// writes. Instantiate with a factory of DocumentStoreContract:
//   INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, InboxStoreContract, ::testing::Types<F>);

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
class InboxStoreContract : public ConsumerContractFixture<Factory> {};

TYPED_TEST_SUITE_P(InboxStoreContract);

TYPED_TEST_P(InboxStoreContract, ANewPairIsClaimedOnceAndThenDone) {
  EXPECT_EQ(this->ClaimCommitted("preview", "e-1"), InboxState::kNew);
  EXPECT_EQ(this->ClaimCommitted("preview", "e-1"), InboxState::kDone);
  EXPECT_EQ(this->ClaimCommitted("ingest", "e-1"), InboxState::kNew) << "the inbox is per consumer";
  EXPECT_EQ(this->ClaimCommitted("preview", "e-2"), InboxState::kNew);
}

TYPED_TEST_P(InboxStoreContract, ARolledBackClaimLeavesNothing) {
  {
    auto tx = this->inbox().BeginConsumer();
    EXPECT_EQ(tx->Claim("preview", "e-1", ContractTime(50)), InboxState::kNew);
  }
  EXPECT_EQ(this->ClaimCommitted("preview", "e-1"), InboxState::kNew);
}

// A batch of events (ConsumerRunner::RunBatch) is claimed in one transaction: the claims commit or
// roll back together, and an event twice in the batch is claimed once.
TYPED_TEST_P(InboxStoreContract, ClaimsOfOneTransactionCommitTogetherAndARepeatIsDone) {
  this->Park("preview", ContractEvent("e-parked"), 10);
  {
    auto tx = this->inbox().BeginConsumer();
    EXPECT_EQ(tx->Claim("preview", "e-1", ContractTime(50)), InboxState::kNew);
    EXPECT_EQ(tx->Claim("preview", "e-2", ContractTime(50)), InboxState::kNew);
  }
  auto tx = this->inbox().BeginConsumer();
  EXPECT_EQ(tx->Claim("preview", "e-1", ContractTime(50)), InboxState::kNew) << "rolled back";
  EXPECT_EQ(tx->Claim("preview", "e-2", ContractTime(50)), InboxState::kNew);
  EXPECT_EQ(tx->Claim("preview", "e-1", ContractTime(50)), InboxState::kDone)
      << "claimed earlier in this very transaction";
  EXPECT_EQ(tx->Claim("preview", "e-parked", ContractTime(50)), InboxState::kParked);
  tx->Commit();
  EXPECT_EQ(this->ClaimCommitted("preview", "e-1"), InboxState::kDone);
  EXPECT_EQ(this->ClaimCommitted("preview", "e-2"), InboxState::kDone);
}

TYPED_TEST_P(InboxStoreContract, ClaimAllClaimsABatchAsClaimWouldOneAfterAnother) {
  this->Park("ingest", ContractEvent("e-parked"), 10);
  this->inbox().RecordFailure("ingest", ContractEvent("e-failing"), "boom", 5, ContractTime(10));
  EXPECT_EQ(this->ClaimCommitted("ingest", "e-done"), InboxState::kNew);
  EXPECT_EQ(this->ClaimCommitted("preview", "e-new"), InboxState::kNew) << "another consumer's";
  const std::vector<std::string> batch = {"e-new", "e-done",   "e-parked", "e-failing",
                                          "e-new", "e-parked", "审核-1"};
  {
    auto tx = this->inbox().BeginConsumer();
    EXPECT_EQ(tx->ClaimAll("ingest", batch, ContractTime(50)),
              (std::vector<InboxState>{InboxState::kNew, InboxState::kDone, InboxState::kParked,
                                       InboxState::kNew, InboxState::kDone, InboxState::kParked,
                                       InboxState::kNew}));
  }  // rolled back: nothing of it remains
  auto tx = this->inbox().BeginConsumer();
  EXPECT_EQ(tx->ClaimAll("ingest", {"e-failing", "e-new"}, ContractTime(50)),
            (std::vector<InboxState>{InboxState::kNew, InboxState::kNew}));
  tx->Commit();
  EXPECT_EQ(this->ClaimCommitted("ingest", "e-failing"), InboxState::kDone);
  EXPECT_EQ(this->ClaimCommitted("ingest", "e-new"), InboxState::kDone);
  EXPECT_EQ(this->ClaimCommitted("ingest", "审核-1"), InboxState::kNew);
}

TYPED_TEST_P(InboxStoreContract, AParkedPairIsClaimedAsParkedAndStaysParked) {
  this->Park("preview", ContractEvent("e-1"), 10);
  EXPECT_EQ(this->ClaimCommitted("preview", "e-1"), InboxState::kParked);
  EXPECT_EQ(this->ClaimCommitted("preview", "e-1"), InboxState::kParked);
  EXPECT_EQ(this->ParkedIds(), std::vector<std::string>{"preview/e-1"});
}

TYPED_TEST_P(InboxStoreContract, AClaimTurnsAFailingPairIntoDone) {
  const OutboxEvent event = ContractEvent("e-1");
  const ConsumerFailure failed =
      this->inbox().RecordFailure("preview", event, "boom", 5, ContractTime(10));
  EXPECT_EQ(failed.attempts, 1);
  EXPECT_FALSE(failed.parked);
  EXPECT_EQ(this->ClaimCommitted("preview", "e-1"), InboxState::kNew);
  EXPECT_EQ(this->ClaimCommitted("preview", "e-1"), InboxState::kDone);
  // Done is final: a later failure report changes nothing.
  const ConsumerFailure after =
      this->inbox().RecordFailure("preview", event, "late", 1, ContractTime(20));
  EXPECT_FALSE(after.parked);
  EXPECT_EQ(after.attempts, 1);
  EXPECT_EQ(this->ClaimCommitted("preview", "e-1"), InboxState::kDone);
  EXPECT_TRUE(this->inbox().ListParked(10).empty());
}

TYPED_TEST_P(InboxStoreContract, AClaimRolledBackAfterAFailureLeavesThePairFailing) {
  const OutboxEvent event = ContractEvent("e-1");
  this->inbox().RecordFailure("preview", event, "boom", 3, ContractTime(10));
  {
    auto tx = this->inbox().BeginConsumer();
    EXPECT_EQ(tx->Claim("preview", "e-1", ContractTime(50)), InboxState::kNew);
  }
  const ConsumerFailure second =
      this->inbox().RecordFailure("preview", event, "boom", 3, ContractTime(20));
  EXPECT_EQ(second.attempts, 2);
  EXPECT_FALSE(second.parked);
}

// The second claimant waits for the first transaction and sees its outcome.

TYPED_TEST_P(InboxStoreContract, AConcurrentClaimSeesDoneOnceTheFirstCommits) {
  auto first = this->inbox().BeginConsumer();
  ASSERT_EQ(first->Claim("preview", "e-1", ContractTime(50)), InboxState::kNew);
  std::optional<InboxState> second;
  std::thread other([&] { second = this->ClaimCommitted("preview", "e-1"); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // let it block, if it will
  first->Commit();
  other.join();
  EXPECT_EQ(second, InboxState::kDone);
}

TYPED_TEST_P(InboxStoreContract, AConcurrentClaimClaimsThePairWhenTheFirstRollsBack) {
  auto first = this->inbox().BeginConsumer();
  ASSERT_EQ(first->Claim("preview", "e-1", ContractTime(50)), InboxState::kNew);
  std::optional<InboxState> second;
  std::thread other([&] { second = this->ClaimCommitted("preview", "e-1"); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  first.reset();
  other.join();
  EXPECT_EQ(second, InboxState::kNew);
  EXPECT_EQ(this->ClaimCommitted("preview", "e-1"), InboxState::kDone);
}

TYPED_TEST_P(InboxStoreContract, OfConcurrentClaimsExactlyOneIsNew) {
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

// Batches that share events (a redelivery taken by two workers) claim each pair once between them.
TYPED_TEST_P(InboxStoreContract, OfConcurrentBatchesEachPairIsNewExactlyOnce) {
  constexpr int kThreads = 6;
  constexpr int kEvents = 12;
  std::vector<std::vector<std::string>> batches(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    for (int e = t % 3; e < kEvents; e += 1 + t % 2)
      batches[t].push_back("e-" + std::to_string(100 + e));
  }
  std::vector<std::atomic<int>> fresh(kEvents);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto tx = this->inbox().BeginConsumer();
      const auto states = tx->ClaimAll("ingest", batches[t], ContractTime(50));
      tx->Commit();
      for (std::size_t i = 0; i < states.size(); ++i) {
        if (states[i] == InboxState::kNew) ++fresh[std::stoi(batches[t][i].substr(2)) - 100];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int e = 0; e < kEvents; ++e) EXPECT_EQ(fresh[e].load(), 1) << "e-" << 100 + e;
}

TYPED_TEST_P(InboxStoreContract, FailuresCountUpAndParkTheEventWholeAtTheLimit) {
  OutboxEvent event = ContractEvent("e-1", 17);
  event.sequence = 99;
  event.type = EventType::kApproved;
  event.review_id = 40;
  event.version = 3;
  event.actor_id = "bob";
  const auto fail = [&](const std::string& error, std::int64_t at) {
    return this->inbox().RecordFailure("ingest", event, error, 3, ContractTime(at));
  };
  const ConsumerFailure first = fail("timeout", 10);
  EXPECT_EQ(first.attempts, 1);
  EXPECT_FALSE(first.parked);
  EXPECT_EQ(fail("timeout", 20).attempts, 2);
  EXPECT_TRUE(this->inbox().ListParked(10).empty());
  const ConsumerFailure third = fail("disk full", 30);
  EXPECT_EQ(third.attempts, 3);
  EXPECT_TRUE(third.parked);
  // Parked is final until un-parked: a further failure is reported as it is and changes nothing.
  const ConsumerFailure fourth = fail("again", 40);
  EXPECT_EQ(fourth.attempts, 3);
  EXPECT_TRUE(fourth.parked);

  const std::vector<ParkedEvent> parked = this->inbox().ListParked(10);
  ASSERT_EQ(parked.size(), 1u);
  OutboxEvent kept = event;
  kept.sequence = 0;
  EXPECT_EQ(parked[0].consumer, "ingest");
  EXPECT_EQ(parked[0].event, kept);
  EXPECT_EQ(parked[0].attempts, 3);
  EXPECT_EQ(parked[0].last_error, "disk full");
  EXPECT_EQ(parked[0].parked_at, ContractTime(30));
}

TYPED_TEST_P(InboxStoreContract, FailuresArePerConsumer) {
  const OutboxEvent event = ContractEvent("e-1");
  EXPECT_EQ(this->inbox().RecordFailure("a", event, "x", 2, ContractTime(1)).attempts, 1);
  EXPECT_EQ(this->inbox().RecordFailure("b", event, "x", 2, ContractTime(2)).attempts, 1);
  EXPECT_TRUE(this->inbox().RecordFailure("a", event, "x", 2, ContractTime(3)).parked);
  EXPECT_EQ(this->ParkedIds(), std::vector<std::string>{"a/e-1"});
}

TYPED_TEST_P(InboxStoreContract, ListParkedIsOldestParkedFirstAndHonoursTheLimit) {
  this->Park("preview", ContractEvent("e-2", 2), 20);
  this->Park("preview", ContractEvent("e-3", 3), 30);
  this->Park("ingest", ContractEvent("e-1", 1), 10);
  this->Park("preview", ContractEvent("e-1", 1), 10);
  EXPECT_EQ(this->ParkedIds(10),
            (std::vector<std::string>{"ingest/e-1", "preview/e-1", "preview/e-2", "preview/e-3"}));
  EXPECT_EQ(this->ParkedIds(2), (std::vector<std::string>{"ingest/e-1", "preview/e-1"}));
  EXPECT_TRUE(this->inbox().ListParked(0).empty());
}

TYPED_TEST_P(InboxStoreContract, UnparkingOneEventFreesItForEveryConsumerAndReturnsItOnce) {
  const OutboxEvent e1 = ContractEvent("e-1", 1);
  this->Park("preview", e1, 10);
  this->Park("ingest", e1, 11);
  this->Park("preview", ContractEvent("e-2", 2), 20);
  EXPECT_EQ(this->inbox().Unpark(std::string("e-1")), std::vector<OutboxEvent>{e1});
  EXPECT_EQ(this->ParkedIds(), std::vector<std::string>{"preview/e-2"});
  EXPECT_EQ(this->ClaimCommitted("preview", "e-1"), InboxState::kNew);
  EXPECT_EQ(this->ClaimCommitted("ingest", "e-1"), InboxState::kNew);
  EXPECT_TRUE(this->inbox().Unpark(std::string("e-1")).empty());
  EXPECT_TRUE(this->inbox().Unpark(std::string("unknown")).empty());
}

TYPED_TEST_P(InboxStoreContract, UnparkingAllReturnsEachEventOnceOldestParkedFirst) {
  const OutboxEvent e1 = ContractEvent("e-1", 1);
  const OutboxEvent e2 = ContractEvent("e-2", 2);
  this->Park("preview", e2, 20);
  this->Park("preview", e1, 10);
  this->Park("ingest", e1, 30);
  this->inbox().RecordFailure("preview", ContractEvent("e-3", 3), "x", 5, ContractTime(5));
  this->ClaimCommitted("ingest", "e-4");
  EXPECT_EQ(this->inbox().Unpark(std::nullopt), (std::vector<OutboxEvent>{e1, e2}));
  EXPECT_TRUE(this->inbox().ListParked(10).empty());
  EXPECT_TRUE(this->inbox().Unpark(std::nullopt).empty());
  // Failing and done pairs were left alone.
  EXPECT_EQ(this->inbox()
                .RecordFailure("preview", ContractEvent("e-3", 3), "x", 5, ContractTime(6))
                .attempts,
            2);
  EXPECT_EQ(this->ClaimCommitted("ingest", "e-4"), InboxState::kDone);
}

TYPED_TEST_P(InboxStoreContract, PruneInboxDeletesOnlyOldDoneRowsOfEventsGoneFromTheOutbox) {
  const Document doc = this->AddDocument();
  this->Append({ContractEvent("in-outbox", doc.id)});
  EXPECT_EQ(this->ClaimCommitted("preview", "old-1"), InboxState::kNew);  // at ContractTime(50)
  EXPECT_EQ(this->ClaimCommitted("ingest", "old-1"), InboxState::kNew);
  EXPECT_EQ(this->ClaimCommitted("preview", "old-2"), InboxState::kNew);
  EXPECT_EQ(this->ClaimCommitted("preview", "in-outbox"), InboxState::kNew);
  {
    auto tx = this->inbox().BeginConsumer();
    EXPECT_EQ(tx->Claim("preview", "young", ContractTime(200)), InboxState::kNew);
    tx->Commit();
  }
  this->Park("preview", ContractEvent("parked", 2), 10);
  this->inbox().RecordFailure("preview", ContractEvent("failing", 3), "x", 5, ContractTime(10));

  // Batches of the limit, then nothing left: neither the young row, nor one whose event the outbox
  // still holds, nor a parked or failing one.
  EXPECT_EQ(this->inbox().PruneInbox(ContractTime(100), 2), 2);
  EXPECT_EQ(this->inbox().PruneInbox(ContractTime(100), 2), 1);
  EXPECT_EQ(this->inbox().PruneInbox(ContractTime(100), 2), 0);
  EXPECT_EQ(this->inbox().PruneInbox(ContractTime(100), 0), 0);
  EXPECT_EQ(this->ClaimCommitted("preview", "old-1"), InboxState::kNew);  // forgotten
  EXPECT_EQ(this->ClaimCommitted("preview", "young"), InboxState::kDone);
  EXPECT_EQ(this->ClaimCommitted("preview", "in-outbox"), InboxState::kDone);
  EXPECT_EQ(this->ParkedIds(), std::vector<std::string>{"preview/parked"});
  EXPECT_EQ(this->inbox()
                .RecordFailure("preview", ContractEvent("failing", 3), "x", 5, ContractTime(20))
                .attempts,
            2);
}

TYPED_TEST_P(InboxStoreContract, ATransactionLocksAndReadsLikeAStoreTransaction) {
  const Document doc = this->AddDocument(1, IngestStatus::kPending);
  {
    auto tx = this->store().Begin();
    tx->PutVersion(ContractVersion(doc.id, 1, "body of v1", "alice"));
    tx->Commit();
  }
  auto tx = this->inbox().BeginConsumer();
  EXPECT_EQ(tx->LockDocument(doc.id), doc);
  EXPECT_EQ(tx->ReadContent(doc.id, 1), "body of v1");
  EXPECT_EQ(tx->ReadContent(doc.id, 2), std::nullopt);
  EXPECT_EQ(tx->LockDocument(12345), std::nullopt);
  const auto both = tx->LockDocumentWithContent(doc.id, 1);
  ASSERT_TRUE(both.has_value());
  EXPECT_EQ(both->document, doc);
  EXPECT_EQ(both->content, "body of v1");
  const auto without = tx->LockDocumentWithContent(doc.id, 2);
  ASSERT_TRUE(without.has_value());
  EXPECT_EQ(without->document, doc);
  EXPECT_EQ(without->content, std::nullopt) << "no such version";
  EXPECT_FALSE(tx->LockDocumentWithContent(12345, 1).has_value());
}

TYPED_TEST_P(InboxStoreContract, SetIngestStatusChangesOnlyTheStatus) {
  const Document doc = this->AddDocument(1, IngestStatus::kPending);
  this->SetIngest(doc.id, IngestStatus::kDone);
  Document expected = doc;
  expected.ingest_status = IngestStatus::kDone;
  EXPECT_EQ(this->store().FindDocument(doc.id), expected);
  auto tx = this->inbox().BeginConsumer();
  EXPECT_THROW(tx->SetIngestStatus(12345, IngestStatus::kDone), StorageError);
}

TYPED_TEST_P(InboxStoreContract, NothingOfARolledBackTransactionRemains) {
  const Document doc = this->AddDocument(1, IngestStatus::kPending);
  {
    auto tx = this->inbox().BeginConsumer();
    tx->Claim("ingest", "e-1", ContractTime(50));
    tx->ReplaceChunks(doc.id, 1, "Title", {"alpha"}, {}, {});
    tx->SetIngestStatus(doc.id, IngestStatus::kDone);
  }
  EXPECT_TRUE(this->chunks().ListChunks(doc.id).empty());
  EXPECT_TRUE(this->Search("alpha", 10).empty());
  EXPECT_EQ(this->store().FindDocument(doc.id), doc);
  EXPECT_EQ(this->ClaimCommitted("ingest", "e-1"), InboxState::kNew);
}

TYPED_TEST_P(InboxStoreContract, ATransactionIsUnusableAfterCommit) {
  auto tx = this->inbox().BeginConsumer();
  tx->Commit();
  EXPECT_THROW(tx->Claim("preview", "e-1", ContractTime(50)), StorageError);
  EXPECT_THROW(tx->Commit(), StorageError);
}

REGISTER_TYPED_TEST_SUITE_P(
    InboxStoreContract, ANewPairIsClaimedOnceAndThenDone, ARolledBackClaimLeavesNothing,
    ClaimsOfOneTransactionCommitTogetherAndARepeatIsDone,
    ClaimAllClaimsABatchAsClaimWouldOneAfterAnother, AParkedPairIsClaimedAsParkedAndStaysParked,
    AClaimTurnsAFailingPairIntoDone, AClaimRolledBackAfterAFailureLeavesThePairFailing,
    AConcurrentClaimSeesDoneOnceTheFirstCommits, AConcurrentClaimClaimsThePairWhenTheFirstRollsBack,
    OfConcurrentClaimsExactlyOneIsNew, OfConcurrentBatchesEachPairIsNewExactlyOnce,
    FailuresCountUpAndParkTheEventWholeAtTheLimit, FailuresArePerConsumer,
    ListParkedIsOldestParkedFirstAndHonoursTheLimit,
    UnparkingOneEventFreesItForEveryConsumerAndReturnsItOnce,
    UnparkingAllReturnsEachEventOnceOldestParkedFirst,
    PruneInboxDeletesOnlyOldDoneRowsOfEventsGoneFromTheOutbox,
    ATransactionLocksAndReadsLikeAStoreTransaction, SetIngestStatusChangesOnlyTheStatus,
    NothingOfARolledBackTransactionRemains, ATransactionIsUnusableAfterCommit);

}  // namespace docgate
