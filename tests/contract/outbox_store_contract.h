#pragma once

// The contract of OutboxStore (app/ports/outbox_store.h): events written through
// StoreTransaction::AppendEvent, then claimed, delivered, deferred, released, renewed, pruned and
// counted in the backlog. The factory it is instantiated with, and the fixture, are in
// store_contract_fixture.h; requeueing and stuck ingestions are in outbox_requeue_contract.h.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "contract/store_contract_fixture.h"
#include "core/error.h"
#include "core/model.h"

namespace docgate {

template <typename Factory>
class OutboxStoreContract : public StoreContractFixture<Factory> {};

TYPED_TEST_SUITE_P(OutboxStoreContract);

TYPED_TEST_P(OutboxStoreContract, DuplicateEventIdThrowsStorageError) {
  this->Append({ContractEvent("e-1")});
  auto tx = this->store().Begin();
  EXPECT_THROW(tx->AppendEvent(ContractEvent("e-1")), StorageError);
}

TYPED_TEST_P(OutboxStoreContract, EventsRoundTripInCommitOrderWithAscendingSequences) {
  OutboxEvent approved = ContractEvent("e-2", 17);
  approved.type = EventType::kApproved;
  approved.review_id = 40;
  approved.version = 3;
  approved.actor_id = "bob";
  approved.occurred_at = ContractTime(77);
  this->Append({ContractEvent("e-1", 1)});
  this->Append({approved, ContractEvent("e-3", 3)});
  const std::vector<OutboxEvent> events = this->outbox().ClaimPending(10);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_LT(events[0].sequence, events[1].sequence);
  EXPECT_LT(events[1].sequence, events[2].sequence);
  approved.sequence = events[1].sequence;
  EXPECT_EQ(events[1], approved);
  EXPECT_EQ(events[0].event_id, "e-1");
  EXPECT_EQ(events[2].event_id, "e-3");
}

TYPED_TEST_P(OutboxStoreContract, ClaimPendingStopsAtLimit) {
  this->Append({ContractEvent("e-1", 1), ContractEvent("e-2", 2), ContractEvent("e-3", 3)});
  EXPECT_EQ(this->PendingEventIds(2), (std::vector<std::string>{"e-1", "e-2"}));
}

TYPED_TEST_P(OutboxStoreContract, MarkDeliveredEventsAreNeverPendingAgain) {
  this->Append({ContractEvent("e-1", 1), ContractEvent("e-2", 2), ContractEvent("e-3", 3)});
  const std::vector<OutboxEvent> events = this->outbox().ClaimPending(10);
  ASSERT_EQ(events.size(), 3u);
  this->outbox().MarkDelivered({events[0].sequence, events[2].sequence}, ContractTime(90));
  EXPECT_EQ(this->PendingEventIds(10), std::vector<std::string>{"e-2"});
  this->outbox().MarkDelivered({events[0].sequence, events[1].sequence}, ContractTime(91));
  this->outbox().MarkDelivered({}, ContractTime(92));
  EXPECT_TRUE(this->outbox().ClaimPending(10).empty());
}

TYPED_TEST_P(OutboxStoreContract, ClaimPendingHandsOutOnlyEachDocumentsOldestUndeliveredEvent) {
  this->Append({ContractEvent("e-1", 1), ContractEvent("e-2", 1), ContractEvent("e-3", 2)});
  this->Append({ContractEvent("e-4", 1)});
  const std::vector<OutboxEvent> heads = this->outbox().ClaimPending(10);
  ASSERT_EQ(heads.size(), 2u);
  EXPECT_EQ(heads[0].event_id, "e-1");
  EXPECT_EQ(heads[1].event_id, "e-3");
  this->outbox().MarkDelivered({heads[0].sequence}, ContractTime(90));
  EXPECT_EQ(this->PendingEventIds(10), (std::vector<std::string>{"e-2", "e-3"}));
}

TYPED_TEST_P(OutboxStoreContract, DeferredEventWaitsUntilDueAndHoldsItsDocumentBack) {
  this->Append({ContractEvent("e-1", 1), ContractEvent("e-2", 1), ContractEvent("e-3", 2)});
  const std::vector<OutboxEvent> heads = this->outbox().ClaimPending(10);
  ASSERT_EQ(heads.size(), 2u);
  this->outbox().Defer({heads[0].sequence}, std::chrono::hours(1), std::chrono::hours(2),
                       "unroutable");
  EXPECT_EQ(this->PendingEventIds(10), std::vector<std::string>{"e-3"});
  EXPECT_EQ(this->outbox().Backlog().pending, 3);
}

TYPED_TEST_P(OutboxStoreContract, DeferWithoutDelayMakesTheEventClaimableAgain) {
  this->Append({ContractEvent("e-1", 1)});
  const std::vector<OutboxEvent> claimed = this->outbox().ClaimPending(10);
  ASSERT_EQ(claimed.size(), 1u);
  this->outbox().Defer({claimed[0].sequence}, std::chrono::milliseconds(0),
                       std::chrono::milliseconds(0), "nacked");
  EXPECT_EQ(this->PendingEventIds(10), std::vector<std::string>{"e-1"});
  this->outbox().Defer({}, std::chrono::hours(1), std::chrono::hours(1), "nothing");
}

TYPED_TEST_P(OutboxStoreContract, PruneDeletesDeliveredEventsBeforeTheCutoffOldestFirst) {
  this->Append({ContractEvent("e-1", 1), ContractEvent("e-2", 2), ContractEvent("e-3", 3),
                ContractEvent("e-4", 4)});
  const std::vector<OutboxEvent> events = this->outbox().ClaimPending(10);
  ASSERT_EQ(events.size(), 4u);
  this->outbox().MarkDelivered({events[2].sequence}, ContractTime(10));
  this->outbox().MarkDelivered({events[0].sequence}, ContractTime(20));
  this->outbox().MarkDelivered({events[1].sequence}, ContractTime(30));
  EXPECT_EQ(this->outbox().PruneDelivered(ContractTime(30), 1), 1);  // e-3, delivered first
  EXPECT_EQ(this->outbox().PruneDelivered(ContractTime(30), 10), 1);  // e-1; e-2 is not older
  EXPECT_EQ(this->outbox().PruneDelivered(ContractTime(30), 10), 0);
  EXPECT_EQ(this->outbox().PruneDelivered(ContractTime(99), 0), 0);
  EXPECT_EQ(this->outbox().PruneDelivered(ContractTime(99), 10), 1);  // e-2; e-4 is pending
  EXPECT_EQ(this->PendingEventIds(10), std::vector<std::string>{"e-4"});
}

TYPED_TEST_P(OutboxStoreContract, BacklogCountsUndeliveredEventsAndTheOldest) {
  EXPECT_EQ(this->outbox().Backlog().pending, 0);
  EXPECT_EQ(this->outbox().Backlog().oldest_occurred_at, std::nullopt);
  OutboxEvent older = ContractEvent("e-2", 2);
  older.occurred_at = ContractTime(5);
  OutboxEvent newer = ContractEvent("e-1", 1);
  newer.occurred_at = ContractTime(50);
  this->Append({newer, older});
  const OutboxBacklog backlog = this->outbox().Backlog();
  EXPECT_EQ(backlog.pending, 2);
  EXPECT_EQ(backlog.oldest_occurred_at, ContractTime(5));
}

TYPED_TEST_P(OutboxStoreContract, MarkDeliveredIgnoresUnknownSequences) {
  this->Append({ContractEvent("e-1")});
  this->outbox().MarkDelivered({12345}, ContractTime(90));
  EXPECT_EQ(this->PendingEventIds(10), std::vector<std::string>{"e-1"});
}

TYPED_TEST_P(OutboxStoreContract, AnotherInstanceNeverGetsClaimedRowsUntilTheirClaimRunsOut) {
  this->Append({ContractEvent("e-1", 1), ContractEvent("e-2", 2), ContractEvent("e-3", 3)});
  const auto other = this->factory_.AnotherInstance();
  ASSERT_EQ(this->PendingEventIds(2), (std::vector<std::string>{"e-1", "e-2"}));
  EXPECT_EQ(this->EventIds(other->ClaimPending(10)), std::vector<std::string>{"e-3"});
  this->factory_.AgeClaims(kContractClaimTtl - std::chrono::seconds(1));
  EXPECT_EQ(this->EventIds(other->ClaimPending(10)), std::vector<std::string>{"e-3"})
      << "its own claim comes back, the others' stay theirs";
  this->factory_.AgeClaims(std::chrono::seconds(2));
  EXPECT_EQ(this->EventIds(other->ClaimPending(10)),
            (std::vector<std::string>{"e-1", "e-2", "e-3"}));
  EXPECT_TRUE(this->outbox().ClaimPending(10).empty());
}

TYPED_TEST_P(OutboxStoreContract, RenewedClaimsOutlastTheirFirstTtlWhileRenewed) {
  this->Append({ContractEvent("e-1", 1), ContractEvent("e-2", 2), ContractEvent("e-3", 3)});
  const auto other = this->factory_.AnotherInstance();
  EXPECT_EQ(this->outbox().RenewClaims(), 0) << "nothing claimed yet";
  ASSERT_EQ(this->PendingEventIds(2), (std::vector<std::string>{"e-1", "e-2"}));
  for (int half_ttls = 1; half_ttls <= 3; ++half_ttls) {
    this->factory_.AgeClaims(kContractClaimTtl / 2);
    EXPECT_EQ(this->outbox().RenewClaims(), 2);
    EXPECT_EQ(this->EventIds(other->ClaimPending(10)), std::vector<std::string>{"e-3"})
        << "after " << half_ttls << " half claim TTLs";
  }
  this->factory_.AgeClaims(kContractClaimTtl + std::chrono::seconds(1));  // renewals stopped
  EXPECT_EQ(this->EventIds(other->ClaimPending(10)),
            (std::vector<std::string>{"e-1", "e-2", "e-3"}));
  EXPECT_EQ(this->outbox().RenewClaims(), 0) << "taken over: no longer this instance's";
  EXPECT_TRUE(this->outbox().ClaimPending(10).empty());
}

TYPED_TEST_P(OutboxStoreContract, AClaimThatRanOutUntakenIsRenewed) {
  this->Append({ContractEvent("e-1", 1), ContractEvent("e-2", 2)});
  const auto other = this->factory_.AnotherInstance();
  ASSERT_EQ(this->outbox().ClaimPending(10).size(), 2u);
  this->factory_.AgeClaims(kContractClaimTtl + std::chrono::seconds(1));
  EXPECT_EQ(this->outbox().RenewClaims(), 2);
  EXPECT_TRUE(other->ClaimPending(10).empty());
}

TYPED_TEST_P(OutboxStoreContract, RenewalCountsOnlyUndeliveredRowsThisInstanceStillClaims) {
  this->Append({ContractEvent("e-1", 1), ContractEvent("e-2", 2), ContractEvent("e-3", 3),
                ContractEvent("e-4", 4)});
  const std::vector<OutboxEvent> claimed = this->outbox().ClaimPending(10);
  ASSERT_EQ(claimed.size(), 4u);
  this->outbox().MarkDelivered({claimed[0].sequence}, ContractTime(90));
  this->outbox().Defer({claimed[1].sequence}, std::chrono::hours(1), std::chrono::hours(2),
                       "unroutable");
  EXPECT_EQ(this->outbox().RenewClaims(), 2);
  this->outbox().ReleaseClaims();
  EXPECT_EQ(this->outbox().RenewClaims(), 0);
  const auto other = this->factory_.AnotherInstance();
  EXPECT_EQ(this->EventIds(other->ClaimPending(10)), (std::vector<std::string>{"e-3", "e-4"}))
      << "released: claimable by anyone at once";
}

REGISTER_TYPED_TEST_SUITE_P(
    OutboxStoreContract, DuplicateEventIdThrowsStorageError,
    EventsRoundTripInCommitOrderWithAscendingSequences, ClaimPendingStopsAtLimit,
    MarkDeliveredEventsAreNeverPendingAgain,
    ClaimPendingHandsOutOnlyEachDocumentsOldestUndeliveredEvent,
    DeferredEventWaitsUntilDueAndHoldsItsDocumentBack,
    DeferWithoutDelayMakesTheEventClaimableAgain,
    PruneDeletesDeliveredEventsBeforeTheCutoffOldestFirst,
    BacklogCountsUndeliveredEventsAndTheOldest, MarkDeliveredIgnoresUnknownSequences,
    AnotherInstanceNeverGetsClaimedRowsUntilTheirClaimRunsOut,
    RenewedClaimsOutlastTheirFirstTtlWhileRenewed, AClaimThatRanOutUntakenIsRenewed,
    RenewalCountsOnlyUndeliveredRowsThisInstanceStillClaims);

}  // namespace docgate
