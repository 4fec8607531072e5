#include "fakes/fake_stores.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "contract/chunk_index_contract.h"
#include "contract/document_store_contract.h"
#include "contract/document_versions_contract.h"
#include "contract/embedding_store_contract.h"
#include "contract/idempotency_store_contract.h"
#include "contract/inbox_store_contract.h"
#include "contract/outbox_requeue_contract.h"
#include "contract/outbox_store_contract.h"
#include "contract/preview_store_contract.h"
#include "contract/review_quorum_contract.h"
#include "contract/review_team_contract.h"
#include "contract/revision_lifecycle_contract.h"
#include "contract/session_store_contract.h"
#include "contract/user_directory_contract.h"
#include "contract/webhook_store_contract.h"
#include "core/error.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_outbox_store.h"

namespace docgate {
namespace {

struct FakeStoreFactory {
  FakeClock claim_clock;
  std::shared_ptr<FakeDatabase> database;
  Stores Make() {
    FakeStores made = OpenFakeStores(claim_clock, kContractClaimTtl);
    database = made.database;
    return made.stores;
  }
  std::shared_ptr<OutboxStore> AnotherInstance() {
    return std::make_shared<FakeOutboxStore>(database);
  }
  void AgeClaims(std::chrono::milliseconds by) { claim_clock.Advance(by); }
};

}  // namespace

INSTANTIATE_TYPED_TEST_SUITE_P(Fake, DocumentStoreContract, ::testing::Types<FakeStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Fake, DocumentVersionsContract, ::testing::Types<FakeStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Fake, RevisionLifecycleContract, ::testing::Types<FakeStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Fake, ReviewQuorumContract, ::testing::Types<FakeStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Fake, ReviewTeamContract, ::testing::Types<FakeStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Fake, OutboxStoreContract, ::testing::Types<FakeStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Fake, IdempotencyStoreContract, ::testing::Types<FakeStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Fake, InboxStoreContract, ::testing::Types<FakeStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Fake, OutboxRequeueContract, ::testing::Types<FakeStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Fake, PreviewStoreContract, ::testing::Types<FakeStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Fake, ChunkIndexContract, ::testing::Types<FakeStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Fake, EmbeddingStoreContract, ::testing::Types<FakeStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Fake, UserDirectoryContract, ::testing::Types<FakeStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Fake, SessionStoreContract, ::testing::Types<FakeStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Fake, WebhookStoreContract, ::testing::Types<FakeStoreFactory>);

namespace {

using std::chrono::milliseconds;

DocumentId AddDocument(DocumentStore& documents) {
  auto tx = documents.Begin();
  const DocumentId id = tx->InsertDocument(ContractDocument());
  tx->Commit();
  return id;
}

TEST(FakeDatabaseTest, FailNextBeginThrowsStorageUnavailableOnce) {
  FakeStores fakes = OpenFakeStores();
  DocumentStore& documents = *fakes.stores.documents;
  fakes.database->FailNextBegin();
  EXPECT_THROW(documents.Begin(), StorageUnavailable);
  EXPECT_NE(documents.Begin(), nullptr);
}

TEST(FakeDatabaseTest, FailNextBeginFailsTheNextTransactionOfAnyStore) {
  FakeStores fakes = OpenFakeStores();
  fakes.database->FailNextBegin();
  EXPECT_THROW(fakes.stores.inbox->BeginConsumer(), StorageUnavailable);
  EXPECT_NE(fakes.stores.documents->Begin(), nullptr);
}

TEST(FakeDatabaseTest, FailNextCommitThrowsStorageUnavailableAndKeepsNothing) {
  FakeStores fakes = OpenFakeStores();
  DocumentStore& documents = *fakes.stores.documents;
  fakes.database->FailNextCommit();
  DocumentId id = 0;
  {
    auto tx = documents.Begin();
    id = tx->InsertDocument(ContractDocument());
    EXPECT_THROW(tx->Commit(), StorageUnavailable);
  }
  EXPECT_EQ(documents.FindDocument(id), std::nullopt);
  EXPECT_NE(documents.FindDocument(AddDocument(documents)), std::nullopt);
}

TEST(FakeDatabaseTest, UnavailableDatabaseFailsEveryCallOfEveryStoreUntilItRecovers) {
  FakeStores fakes = OpenFakeStores();
  const Stores& stores = fakes.stores;
  const DocumentId id = AddDocument(*stores.documents);
  auto open = stores.documents->Begin();
  fakes.database->SetUnavailable(true);
  EXPECT_FALSE(stores.documents->Ping());
  EXPECT_FALSE(stores.previews->Ping());
  EXPECT_THROW(open->LockDocument(id), StorageUnavailable);
  EXPECT_THROW(open->Commit(), StorageUnavailable);
  open.reset();
  EXPECT_THROW(stores.documents->Begin(), StorageUnavailable);
  EXPECT_THROW(stores.documents->FindDocument(id), StorageUnavailable);
  EXPECT_THROW(stores.documents->ListDocuments({}), StorageUnavailable);
  EXPECT_THROW(stores.outbox->ClaimPending(10), StorageUnavailable);
  EXPECT_THROW(stores.outbox->MarkDelivered({1}, ContractTime()), StorageUnavailable);
  EXPECT_THROW(stores.idempotency->PruneIdempotencyKeys(ContractTime(), 10), StorageUnavailable);
  EXPECT_THROW(stores.inbox->ListParked(10), StorageUnavailable);
  EXPECT_THROW(stores.previews->Find(id), StorageUnavailable);
  EXPECT_THROW(stores.chunks->ListChunks(id), StorageUnavailable);
  fakes.database->SetUnavailable(false);
  EXPECT_TRUE(stores.documents->Ping());
  EXPECT_NE(stores.documents->FindDocument(id), std::nullopt);
}

TEST(FakeUserDirectoryTest, FailsWhileTheDatabaseIsUnavailableExceptWhenAskedForNoIds) {
  FakeStores fakes = OpenFakeStores();
  UserDirectory& users = *fakes.stores.users;
  users.Remember(UserRecord{"alice", "Alice", ContractTime(1)});
  fakes.database->SetUnavailable(true);
  EXPECT_THROW(users.Remember(UserRecord{"alice", "A.", ContractTime(2)}), StorageUnavailable);
  EXPECT_THROW(users.Find("alice"), StorageUnavailable);
  EXPECT_THROW(users.NamesOf({"alice"}), StorageUnavailable);
  EXPECT_TRUE(users.NamesOf({}).empty()) << "no ids: no query";
  fakes.database->SetUnavailable(false);
  EXPECT_EQ(users.NamesOf({"alice"}), (std::map<UserId, std::string>{{"alice", "Alice"}}));
}

// Remember is a write of its own: it waits for the writer slot like any statement in autocommit.
TEST(FakeUserDirectoryTest, RememberWaitsForTheWriterSlot) {
  FakeStores fakes = OpenFakeStores(milliseconds(20));
  auto holder = fakes.stores.documents->Begin();
  EXPECT_THROW(fakes.stores.users->Remember(UserRecord{"alice", "Alice", ContractTime()}),
               StorageUnavailable);
  EXPECT_EQ(fakes.stores.users->Find("alice"), std::nullopt) << "reads do not wait";
  holder.reset();
  fakes.stores.users->Remember(UserRecord{"alice", "Alice", ContractTime()});
  EXPECT_EQ(fakes.stores.users->Find("alice")->name, "Alice");
}

TEST(FakeSessionStoreTest, FailsWhileTheDatabaseIsUnavailable) {
  FakeStores fakes = OpenFakeStores();
  SessionStore& sessions = *fakes.stores.sessions;
  const SessionRecord session{.id_hash = "h1",
                              .user_id = "alice",
                              .user_name = "Alice",
                              .roles = {"author"},
                              .csrf_token = "csrf",
                              .id_token = "",
                              .created_at = ContractTime(0),
                              .expires_at = ContractTime(1'000)};
  SessionRecord other = session;
  other.id_hash = "h2";
  sessions.Create(session);
  fakes.database->SetUnavailable(true);
  EXPECT_THROW(sessions.Create(other), StorageUnavailable);
  EXPECT_THROW(sessions.Find("h1", ContractTime()), StorageUnavailable);
  EXPECT_THROW(sessions.Delete("h1"), StorageUnavailable);
  EXPECT_THROW(sessions.DeleteExpired(ContractTime(2'000)), StorageUnavailable);
  fakes.database->SetUnavailable(false);
  EXPECT_EQ(sessions.Find("h1", ContractTime()), session);
  EXPECT_EQ(sessions.Find("h2", ContractTime()), std::nullopt);
}

// Each write is a write of its own: it waits for the writer slot like any statement in autocommit.
TEST(FakeSessionStoreTest, WritesWaitForTheWriterSlot) {
  FakeStores fakes = OpenFakeStores(milliseconds(20));
  SessionStore& sessions = *fakes.stores.sessions;
  const SessionRecord session{.id_hash = "h1",
                              .user_id = "alice",
                              .user_name = std::nullopt,
                              .roles = {},
                              .csrf_token = "csrf",
                              .id_token = "",
                              .created_at = ContractTime(0),
                              .expires_at = ContractTime(1'000)};
  SessionRecord other = session;
  other.id_hash = "h2";
  sessions.Create(session);
  auto holder = fakes.stores.documents->Begin();
  EXPECT_THROW(sessions.Create(other), StorageUnavailable);
  EXPECT_THROW(sessions.Delete("h1"), StorageUnavailable);
  EXPECT_THROW(sessions.DeleteExpired(ContractTime(2'000)), StorageUnavailable);
  EXPECT_EQ(sessions.Find("h1", ContractTime()), session) << "reads do not wait";
  EXPECT_EQ(sessions.Find("h2", ContractTime()), std::nullopt);
  holder.reset();
  EXPECT_TRUE(sessions.Delete("h1"));
}

TEST(FakeDatabaseTest, SecondWriterGivesUpAfterTheLockTimeout) {
  FakeStores fakes = OpenFakeStores(milliseconds(20));
  DocumentStore& documents = *fakes.stores.documents;
  auto holder = documents.Begin();
  EXPECT_THROW(documents.Begin(), StorageUnavailable);
  EXPECT_THROW(fakes.stores.inbox->BeginConsumer(), StorageUnavailable);
  EXPECT_THROW(fakes.stores.outbox->MarkDelivered({1}, ContractTime()), StorageUnavailable);
  holder.reset();
  EXPECT_NE(documents.Begin(), nullptr);
}

TEST(FakeDatabaseTest, DeliveryMarksSurviveALaterCommit) {
  FakeStores fakes = OpenFakeStores();
  DocumentStore& documents = *fakes.stores.documents;
  OutboxStore& outbox = *fakes.stores.outbox;
  {
    auto tx = documents.Begin();
    tx->AppendEvent(ContractEvent("e-1"));
    tx->Commit();
  }
  outbox.MarkDelivered({outbox.ClaimPending(1).at(0).sequence}, ContractTime());
  auto tx = documents.Begin();
  tx->AppendEvent(ContractEvent("e-2"));
  tx->Commit();
  ASSERT_EQ(outbox.ClaimPending(10).size(), 1u);
  EXPECT_EQ(outbox.ClaimPending(10)[0].event_id, "e-2");
}

TEST(FakeOutboxStoreTest, AnInstanceCutOffFailsAloneWhileTheOthersGoOn) {
  FakeStores fakes = OpenFakeStores();
  auto other = std::make_shared<FakeOutboxStore>(fakes.database);
  {
    auto tx = fakes.stores.documents->Begin();
    tx->AppendEvent(ContractEvent("e-1"));
    tx->Commit();
  }
  other->SetUnavailable(true);
  EXPECT_THROW(other->ClaimPending(10), StorageUnavailable);
  EXPECT_THROW(other->Backlog(), StorageUnavailable);
  ASSERT_EQ(fakes.stores.outbox->ClaimPending(10).size(), 1u);
  other->SetUnavailable(false);
  EXPECT_TRUE(other->ClaimPending(10).empty()) << "claimed by the first instance";
}

}  // namespace
}  // namespace docgate
