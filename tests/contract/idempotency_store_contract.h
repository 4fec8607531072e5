#pragma once

// The contract of IdempotencyStore (app/ports/idempotency_store.h): Idempotency-Keys reserved, completed
// (on their own or in a StoreTransaction, with its effect), released and pruned. The factory it
// is instantiated with, and the fixture, are in store_contract_fixture.h.

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
class IdempotencyStoreContract : public StoreContractFixture<Factory> {};

TYPED_TEST_SUITE_P(IdempotencyStoreContract);

TYPED_TEST_P(IdempotencyStoreContract, ReservingAFreeKeyWinsAndTheNextReservationSeesItInFlight) {
  EXPECT_EQ(this->Reserve("alice", "k-1", "fp-1", "owner-a"), std::nullopt);
  const auto seen = this->Reserve("alice", "k-1", "fp-1", "owner-b", 10);
  ASSERT_TRUE(seen);
  EXPECT_EQ(seen->fingerprint, "fp-1");
  EXPECT_EQ(seen->response, std::nullopt);
  EXPECT_EQ(seen->expires_at, ContractTime(30'000));
  // The losing reservation changed nothing: the record is still owner-a's.
  EXPECT_TRUE(
      this->keys().CompleteIdempotentRequest("alice", "k-1", "owner-a", "r", ContractTime(1)));
}

TYPED_TEST_P(IdempotencyStoreContract, KeysArePerCaller) {
  EXPECT_EQ(this->Reserve("alice", "k-1", "fp-1", "owner-a"), std::nullopt);
  EXPECT_EQ(this->Reserve("carol", "k-1", "fp-2", "owner-c"), std::nullopt);
  EXPECT_EQ(this->Reserve("alice", "k-1", "fp-1", "owner-x")->fingerprint, "fp-1");
  EXPECT_EQ(this->Reserve("carol", "k-1", "fp-1", "owner-x")->fingerprint, "fp-2");
}

TYPED_TEST_P(IdempotencyStoreContract, AnExpiredRecordIsReservableAgain) {
  ASSERT_EQ(this->Reserve("alice", "k-1", "fp-1", "owner-a"), std::nullopt);
  ASSERT_TRUE(this->Reserve("alice", "k-1", "fp-1", "owner-b", 29'999));
  // expires_at <= now: the lease has run out, the key is free.
  EXPECT_EQ(this->Reserve("alice", "k-1", "fp-2", "owner-b", 30'000), std::nullopt);
  EXPECT_EQ(this->Reserve("alice", "k-1", "fp-1", "owner-c", 30'001)->fingerprint, "fp-2");
  // A completed record, too, once its TTL is over.
  ASSERT_TRUE(this->keys().CompleteIdempotentRequest("alice", "k-1", "owner-b", "done",
                                                     ContractTime(40'000)));
  EXPECT_EQ(this->Reserve("alice", "k-1", "fp-1", "owner-c", 39'999)->response, "done");
  EXPECT_EQ(this->Reserve("alice", "k-1", "fp-3", "owner-d", 40'000), std::nullopt);
}

TYPED_TEST_P(IdempotencyStoreContract, ConcurrentReservationsOfOneKeyHaveExactlyOneWinner) {
  constexpr int kThreads = 8;
  std::atomic<int> winners{0};
  std::atomic<int> in_flight{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const auto seen = this->Reserve("alice", "k-1", "fp-1", "owner-" + std::to_string(t));
      if (!seen) {
        ++winners;
      } else if (!seen->response && seen->fingerprint == "fp-1") {
        ++in_flight;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(winners.load(), 1);
  EXPECT_EQ(in_flight.load(), kThreads - 1);
}

TYPED_TEST_P(IdempotencyStoreContract, CompletionInATransactionCommitsWithTheEffect) {
  ASSERT_EQ(this->Reserve("alice", "k-1", "fp-1", "owner-a"), std::nullopt);
  DocumentId id = 0;
  this->Committed([&](StoreTransaction& tx) {
    id = tx.InsertDocument(ContractDocument());
    tx.CompleteIdempotentRequest("alice", "k-1", "owner-a", "{\"status\":201}",
                                 ContractTime(86'400'000));
  });
  EXPECT_TRUE(this->store().FindDocument(id));
  const auto seen = this->Reserve("alice", "k-1", "fp-1", "owner-b", 50'000);
  ASSERT_TRUE(seen);
  EXPECT_EQ(seen->response, "{\"status\":201}");
  EXPECT_EQ(seen->expires_at, ContractTime(86'400'000));
}

TYPED_TEST_P(IdempotencyStoreContract, CompletionInATransactionRollsBackWithIt) {
  ASSERT_EQ(this->Reserve("alice", "k-1", "fp-1", "owner-a"), std::nullopt);
  {
    auto tx = this->store().Begin();
    tx->InsertDocument(ContractDocument());
    tx->CompleteIdempotentRequest("alice", "k-1", "owner-a", "r", ContractTime(86'400'000));
  }
  EXPECT_TRUE(this->store().ListDocuments({}).empty());
  const auto seen = this->Reserve("alice", "k-1", "fp-1", "owner-b", 10);
  ASSERT_TRUE(seen);
  EXPECT_EQ(seen->response, std::nullopt);
  EXPECT_EQ(seen->expires_at, ContractTime(30'000));
}

TYPED_TEST_P(IdempotencyStoreContract, CompletionOfAReservationTakenOverThrowsAndNothingCommits) {
  ASSERT_EQ(this->Reserve("alice", "k-1", "fp-1", "owner-a"), std::nullopt);
  ASSERT_EQ(this->Reserve("alice", "k-1", "fp-1", "owner-b", 30'000), std::nullopt);
  {
    auto tx = this->store().Begin();
    tx->InsertDocument(ContractDocument());
    EXPECT_THROW(
        tx->CompleteIdempotentRequest("alice", "k-1", "owner-a", "r", ContractTime(86'400'000)),
        StorageError);
  }
  EXPECT_TRUE(this->store().ListDocuments({}).empty());
  EXPECT_FALSE(this->keys().CompleteIdempotentRequest("alice", "k-1", "owner-a", "r",
                                                      ContractTime(86'400'000)));
  EXPECT_EQ(this->Reserve("alice", "k-1", "fp-1", "owner-c", 30'001)->response, std::nullopt);
}

TYPED_TEST_P(IdempotencyStoreContract, CompletionWithoutEffectStoresTheFirstResponseOnly) {
  ASSERT_EQ(this->Reserve("alice", "k-1", "fp-1", "owner-a"), std::nullopt);
  EXPECT_TRUE(this->keys().CompleteIdempotentRequest("alice", "k-1", "owner-a", "first",
                                                     ContractTime(86'400'000)));
  EXPECT_FALSE(this->keys().CompleteIdempotentRequest("alice", "k-1", "owner-a", "second",
                                                      ContractTime(99'400'000)));
  EXPECT_FALSE(this->keys().CompleteIdempotentRequest("alice", "k-2", "owner-a", "other",
                                                      ContractTime(86'400'000)));
  const auto seen = this->Reserve("alice", "k-1", "fp-1", "owner-b", 10);
  ASSERT_TRUE(seen);
  EXPECT_EQ(seen->response, "first");
  EXPECT_EQ(seen->expires_at, ContractTime(86'400'000));
}

TYPED_TEST_P(IdempotencyStoreContract, ReleaseFreesOnlyItsOwnInFlightRecord) {
  ASSERT_EQ(this->Reserve("alice", "k-1", "fp-1", "owner-a"), std::nullopt);
  this->keys().ReleaseIdempotencyKey("alice", "k-1", "owner-x");
  EXPECT_TRUE(this->Reserve("alice", "k-1", "fp-1", "owner-b", 10));
  this->keys().ReleaseIdempotencyKey("alice", "k-1", "owner-a");
  EXPECT_EQ(this->Reserve("alice", "k-1", "fp-2", "owner-b", 20), std::nullopt);
  // Never a completed record.
  ASSERT_TRUE(this->keys().CompleteIdempotentRequest("alice", "k-1", "owner-b", "done",
                                                     ContractTime(86'400'000)));
  this->keys().ReleaseIdempotencyKey("alice", "k-1", "owner-b");
  EXPECT_EQ(this->Reserve("alice", "k-1", "fp-2", "owner-c", 30)->response, "done");
}

TYPED_TEST_P(IdempotencyStoreContract, PruneDeletesOnlyExpiredRecordsInBoundedBatches) {
  // Five records expire at 30 s (in flight); two completed ones live until 100 s.
  for (int i = 0; i < 7; ++i) {
    ASSERT_EQ(this->Reserve("alice", "k-" + std::to_string(i), "fp", "o-" + std::to_string(i)),
              std::nullopt);
  }
  for (int i = 5; i < 7; ++i) {
    ASSERT_TRUE(this->keys().CompleteIdempotentRequest(
        "alice", "k-" + std::to_string(i), "o-" + std::to_string(i), "r", ContractTime(100'000)));
  }
  EXPECT_EQ(this->keys().PruneIdempotencyKeys(ContractTime(29'999), 10), 0);
  EXPECT_EQ(this->keys().PruneIdempotencyKeys(ContractTime(30'000), 2), 2);
  EXPECT_EQ(this->keys().PruneIdempotencyKeys(ContractTime(30'000), 0), 0);
  EXPECT_EQ(this->keys().PruneIdempotencyKeys(ContractTime(30'000), 10), 3);
  EXPECT_EQ(this->keys().PruneIdempotencyKeys(ContractTime(30'000), 10), 0);
  // The live ones are still there, as they were.
  for (int i = 5; i < 7; ++i) {
    EXPECT_EQ(this->Reserve("alice", "k-" + std::to_string(i), "fp", "x", 50'000)->response, "r");
  }
  EXPECT_EQ(this->keys().PruneIdempotencyKeys(ContractTime(100'000), 10), 2);
}

REGISTER_TYPED_TEST_SUITE_P(
    IdempotencyStoreContract, ReservingAFreeKeyWinsAndTheNextReservationSeesItInFlight,
    KeysArePerCaller, AnExpiredRecordIsReservableAgain,
    ConcurrentReservationsOfOneKeyHaveExactlyOneWinner,
    CompletionInATransactionCommitsWithTheEffect, CompletionInATransactionRollsBackWithIt,
    CompletionOfAReservationTakenOverThrowsAndNothingCommits,
    CompletionWithoutEffectStoresTheFirstResponseOnly, ReleaseFreesOnlyItsOwnInFlightRecord,
    PruneDeletesOnlyExpiredRecordsInBoundedBatches);

}  // namespace docgate
