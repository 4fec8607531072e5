#include "fakes/fake_document_store.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>

#include "contract/chunk_index_contract.h"
#include "contract/document_store_contract.h"
#include "contract/inbox_store_contract.h"
#include "contract/outbox_requeue_contract.h"
#include "contract/preview_store_contract.h"
#include "core/error.h"
#include "fakes/fake_clock.h"

namespace docgate {
namespace {

struct FakeStoreFactory {
  FakeClock claim_clock;
  FakeDocumentStore* store = nullptr;
  Stores Make() {
    auto made = std::make_shared<FakeDocumentStore>(claim_clock, kContractClaimTtl);
    store = made.get();
    return StoresOf(std::move(made));
  }
  std::shared_ptr<OutboxStore> AnotherInstance() { return store->AnotherInstance(); }
  void AgeClaims(std::chrono::milliseconds by) { claim_clock.Advance(by); }
};

}  // namespace

INSTANTIATE_TYPED_TEST_SUITE_P(Fake, DocumentStoreContract, ::testing::Types<FakeStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Fake, InboxStoreContract, ::testing::Types<FakeStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Fake, OutboxRequeueContract, ::testing::Types<FakeStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Fake, PreviewStoreContract, ::testing::Types<FakeStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Fake, ChunkIndexContract, ::testing::Types<FakeStoreFactory>);

namespace {

using std::chrono::milliseconds;

DocumentId AddDocument(FakeDocumentStore& store) {
  auto tx = store.Begin();
  const DocumentId id = tx->InsertDocument(ContractDocument());
  tx->Commit();
  return id;
}

TEST(FakeDocumentStoreTest, FailNextBeginThrowsStorageUnavailableOnce) {
  FakeDocumentStore store;
  store.FailNextBegin();
  EXPECT_THROW(store.Begin(), StorageUnavailable);
  EXPECT_NE(store.Begin(), nullptr);
}

TEST(FakeDocumentStoreTest, FailNextCommitThrowsStorageUnavailableAndKeepsNothing) {
  FakeDocumentStore store;
  store.FailNextCommit();
  DocumentId id = 0;
  {
    auto tx = store.Begin();
    id = tx->InsertDocument(ContractDocument());
    EXPECT_THROW(tx->Commit(), StorageUnavailable);
  }
  EXPECT_EQ(store.FindDocument(id), std::nullopt);
  EXPECT_NE(store.FindDocument(AddDocument(store)), std::nullopt);
}

TEST(FakeDocumentStoreTest, UnavailableStoreFailsEveryCallUntilItRecovers) {
  FakeDocumentStore store;
  const DocumentId id = AddDocument(store);
  auto open = store.Begin();
  store.SetUnavailable(true);
  EXPECT_FALSE(store.Ping());
  EXPECT_THROW(open->LockDocument(id), StorageUnavailable);
  EXPECT_THROW(open->Commit(), StorageUnavailable);
  open.reset();
  EXPECT_THROW(store.Begin(), StorageUnavailable);
  EXPECT_THROW(store.FindDocument(id), StorageUnavailable);
  EXPECT_THROW(store.ListDocuments({}), StorageUnavailable);
  EXPECT_THROW(store.ClaimPending(10), StorageUnavailable);
  EXPECT_THROW(store.MarkDelivered({1}, ContractTime()), StorageUnavailable);
  store.SetUnavailable(false);
  EXPECT_TRUE(store.Ping());
  EXPECT_NE(store.FindDocument(id), std::nullopt);
}

TEST(FakeDocumentStoreTest, SecondWriterGivesUpAfterTheLockTimeout) {
  FakeDocumentStore store(milliseconds(20));
  auto holder = store.Begin();
  EXPECT_THROW(store.Begin(), StorageUnavailable);
  EXPECT_THROW(store.MarkDelivered({1}, ContractTime()), StorageUnavailable);
  holder.reset();
  EXPECT_NE(store.Begin(), nullptr);
}

TEST(FakeDocumentStoreTest, DeliveryMarksSurviveALaterCommit) {
  FakeDocumentStore store;
  {
    auto tx = store.Begin();
    tx->AppendEvent(ContractEvent("e-1"));
    tx->Commit();
  }
  store.MarkDelivered({store.ClaimPending(1).at(0).sequence}, ContractTime());
  auto tx = store.Begin();
  tx->AppendEvent(ContractEvent("e-2"));
  tx->Commit();
  ASSERT_EQ(store.ClaimPending(10).size(), 1u);
  EXPECT_EQ(store.ClaimPending(10)[0].event_id, "e-2");
}

}  // namespace
}  // namespace docgate
