#include "adapters/pg/pg_session.h"
#include "adapters/pg/pg_stores.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <pqxx/pqxx>

#include <atomic>
#include <latch>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "adapters/pg/pg_migrations.h"
#include "app/document_service.h"
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
#include "core/lifecycle.h"
#include "fakes/counting_wakeup.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_lock_gate.h"
#include "fakes/fake_random.h"
#include "support/pg_test_database.h"
#include "support/schema14_reviews_seed.h"
#include "support/schema6_versions_seed.h"
#include "support/schema7_chunks_seed.h"
#include "support/test_actors.h"

namespace docgate {
namespace {

using std::chrono::milliseconds;
using ::testing::HasSubstr;

struct PgStoreFactory {
  PgTestDatabase db;
  PgConfig Config() {
    PgConfig config = db.Config();
    config.outbox_claim_ttl = kContractClaimTtl;
    return config;
  }
  Stores Make() { return OpenPgStores(Config()); }
  std::shared_ptr<OutboxStore> AnotherInstance() { return Make().outbox; }
  void AgeClaims(std::chrono::milliseconds by) {
    db.Execute("UPDATE kh_outbox SET claimed_until = claimed_until - " +
               std::to_string(by.count()));
  }
};

}  // namespace

INSTANTIATE_TYPED_TEST_SUITE_P(Postgres, DocumentStoreContract, ::testing::Types<PgStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Postgres, DocumentVersionsContract,
                               ::testing::Types<PgStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Postgres, RevisionLifecycleContract,
                               ::testing::Types<PgStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Postgres, ReviewQuorumContract, ::testing::Types<PgStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Postgres, ReviewTeamContract, ::testing::Types<PgStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Postgres, OutboxStoreContract, ::testing::Types<PgStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Postgres, IdempotencyStoreContract,
                               ::testing::Types<PgStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Postgres, InboxStoreContract, ::testing::Types<PgStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Postgres, OutboxRequeueContract, ::testing::Types<PgStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Postgres, PreviewStoreContract, ::testing::Types<PgStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Postgres, ChunkIndexContract, ::testing::Types<PgStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Postgres, EmbeddingStoreContract, ::testing::Types<PgStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Postgres, UserDirectoryContract, ::testing::Types<PgStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Postgres, SessionStoreContract, ::testing::Types<PgStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Postgres, WebhookStoreContract, ::testing::Types<PgStoreFactory>);

namespace {

constexpr int kRacers = 50;

// Runs body(i) on `n` threads released together, so that they really contend.
template <typename Body>
void RunTogether(int n, Body body) {
  std::latch start(n);
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      body(i);
    });
  }
  for (std::thread& thread : threads) thread.join();
}

struct Tally {
  int accepted = 0;
  int refused = 0;
};

// Runs attempt(i) on kRacers threads released together; attempt returns whether it was accepted
// (false: refused as the state machine says). An exception fails the test.
template <typename Attempt>
Tally Race(Attempt attempt) {
  std::atomic<int> accepted{0};
  std::atomic<int> refused{0};
  RunTogether(kRacers, [&](int i) {
    try {
      ++(attempt(i) ? accepted : refused);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "racer " << i << ": " << e.what();
    }
  });
  return {accepted.load(), refused.load()};
}

// A use case's answer in a race: success, or INVALID_STATE for a loser; anything else fails.
bool Accepted(const Result<Transition>& result) {
  if (result.ok()) return true;
  EXPECT_EQ(result.error().code, ErrorCode::kInvalidState) << result.error().detail;
  return false;
}

class PgDocumentStoreTest : public ::testing::Test {
 protected:
  PgConfig Config(int pool_size = 8) const {
    PgConfig config = db_.Config();
    config.pool_size = pool_size;
    return config;
  }

  // A draft with its content, committed.
  static Document AddDraft(DocumentStore& store, TimePoint now) {
    Document doc;
    doc.title = "Guide";
    doc.author_id = kAlice.id;
    doc.created_at = now;
    doc.updated_at = now;
    auto tx = store.Begin();
    doc.id = tx->InsertDocument(doc);
    tx->PutVersion(DocumentVersion{doc.id, doc.version, doc.title, "body", "alice", now});
    tx->Commit();
    return doc;
  }

  // A document pending review, submitted the way DocumentService::Submit does it.
  static Review AddSubmitted(DocumentStore& store, TimePoint now) {
    Document doc = AddDraft(store, now);
    auto tx = store.Begin();
    doc = *tx->LockDocument(doc.id);
    Review review = *Submit(doc, kAlice, now);
    review.id = tx->InsertReview(review);
    AttachReview(doc, review.id);
    tx->UpdateDocument(doc);
    tx->Commit();
    return review;
  }

  static OutboxEvent EventFor(EventType type, const Document& doc, const Review& review,
                              const Actor& actor, const std::string& event_id, TimePoint now) {
    OutboxEvent event;
    event.event_id = event_id;
    event.type = type;
    event.document_id = doc.id;
    event.review_id = review.id;
    event.version = review.document_version;
    event.actor_id = actor.id;
    event.occurred_at = now;
    return event;
  }

  std::int64_t OutboxRows() const { return db_.Count("SELECT count(*) FROM kh_outbox"); }

  // The message of the `E` that opening a store with `config` throws.
  template <typename E>
  static std::string OpenError(const PgConfig& config) {
    try {
      OpenPgStores(config);
    } catch (const E& e) {
      return e.what();
    }
    return "opened without an error";
  }

  PgTestDatabase db_;
  FakeClock clock_;
};

TEST_F(PgDocumentStoreTest, ConcurrentStartsMigrateExactlyOnce) {
  std::atomic<int> failures{0};
  std::vector<std::unique_ptr<Stores>> stores(2);
  RunTogether(6, [&](int i) {
    try {
      if (i < 2) {
        stores[i] = std::make_unique<Stores>(OpenPgStores(Config()));
      } else {
        PgSession::Migrate(Config());
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << "start " << i << ": " << e.what();
      ++failures;
    }
  });
  EXPECT_EQ(failures.load(), 0);
  const auto rows = db_.Execute("SELECT version, name FROM schema_migrations ORDER BY version");
  ASSERT_EQ(rows.size(), 18u);
  EXPECT_EQ(rows[0][0].as<int>(), 1);
  EXPECT_EQ(rows[0][1].as<std::string>(), "0001_init.sql");
  EXPECT_EQ(rows[1][0].as<int>(), 2);
  EXPECT_EQ(rows[1][1].as<std::string>(), "0002_outbox_relay.sql");
  EXPECT_EQ(rows[2][0].as<int>(), 3);
  EXPECT_EQ(rows[2][1].as<std::string>(), "0003_idempotency.sql");
  EXPECT_EQ(rows[3][0].as<int>(), 4);
  EXPECT_EQ(rows[3][1].as<std::string>(), "0004_consumers.sql");
  EXPECT_EQ(rows[4][0].as<int>(), 5);
  EXPECT_EQ(rows[4][1].as<std::string>(), "0005_version_editors.sql");
  EXPECT_EQ(rows[5][0].as<int>(), 6);
  EXPECT_EQ(rows[5][1].as<std::string>(), "0006_inbox_retention.sql");
  EXPECT_EQ(rows[6][0].as<int>(), 7);
  EXPECT_EQ(rows[6][1].as<std::string>(), "0007_revisions.sql");
  EXPECT_EQ(rows[7][0].as<int>(), 8);
  EXPECT_EQ(rows[7][1].as<std::string>(), "0008_text_analyzer.sql");
  EXPECT_EQ(rows[8][1].as<std::string>(), "0009_stems_of_more_languages.sql");
  EXPECT_EQ(rows[9][1].as<std::string>(), "0010_embeddings.sql");
  EXPECT_EQ(rows[10][1].as<std::string>(), "0011_search_statistics.sql");
  EXPECT_EQ(rows[11][1].as<std::string>(), "0012_every_editor_of_a_version.sql");
  EXPECT_EQ(rows[12][0].as<int>(), 13);
  EXPECT_EQ(rows[12][1].as<std::string>(), "0013_users.sql");
  EXPECT_EQ(rows[13][0].as<int>(), 14);
  EXPECT_EQ(rows[13][1].as<std::string>(), "0014_sessions.sql");
  EXPECT_EQ(rows[14][0].as<int>(), 15);
  EXPECT_EQ(rows[14][1].as<std::string>(), "0015_review_approvals.sql");
  EXPECT_EQ(rows[15][0].as<int>(), 16);
  EXPECT_EQ(rows[15][1].as<std::string>(), "0016_review_teams.sql");
  EXPECT_EQ(rows[16][0].as<int>(), 17);
  EXPECT_EQ(rows[16][1].as<std::string>(), "0017_formats.sql");
  EXPECT_EQ(rows[17][0].as<int>(), 18);
  EXPECT_EQ(rows[17][1].as<std::string>(), "0018_webhooks.sql");
  EXPECT_EQ(db_.Count("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()"
                      " AND tablename IN ('kh_document', 'kh_document_content',"
                      " 'kh_document_review', 'kh_outbox', 'kh_idempotency',"
                      " 'schema_migrations')"),
            6);
}

// Migration 0007 on a database of schema 6 (ADR 0008): every kept version gets the document's
// title, each editor's newest version is recorded, and the drafts no review was bound to that are
// not the current version are dropped.
TEST_F(PgDocumentStoreTest, Migration0007KeepsSubmittedVersionsAndRecordsEveryEditor) {
  {
    pqxx::connection connection(db_.url());
    ApplyPostgresMigrations(connection, std::vector<EmbeddedFile>(kPostgresMigrations.begin(),
                                                                  kPostgresMigrations.begin() + 6));
  }
  db_.Execute(kSchema6VersionsSeed);
  Stores stores = OpenPgStores(Config());  // applies 0007
  const auto kept =
      db_.Execute("SELECT version, title, content FROM kh_document_content ORDER BY version");
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[0][0].as<int>(), 2);
  EXPECT_EQ(kept[0][1].as<std::string>(), kSchema6SeedTitle);
  EXPECT_EQ(kept[1][0].as<int>(), 4);
  EXPECT_EQ(kept[1][2].as<std::string>(), "v4");
  const auto editors =
      db_.Execute("SELECT editor, last_version FROM kh_document_editor ORDER BY last_version DESC");
  ASSERT_EQ(editors.size(), 3u);
  EXPECT_EQ(editors[0][0].as<std::string>(), "alice");
  EXPECT_EQ(editors[0][1].as<int>(), 4);
  EXPECT_EQ(editors[1][0].as<std::string>(), "carol");
  EXPECT_EQ(editors[2][0].as<std::string>(), "\u5f20\u4e09");
  EXPECT_EQ(editors[2][1].as<int>(), 2);
  auto tx = stores.documents->Begin();
  EXPECT_EQ(tx->ListEditors(1, 2), (std::vector<UserId>{"alice", "carol"}))
      << "carol wrote the dropped version 3 after the approved one";
}

// Migration 0015 on a database of schema 14 (review quorums): every review needs one approval, and
// each approved one holds it, its decision's; the others hold none.
TEST_F(PgDocumentStoreTest, Migration0015GivesEachApprovedReviewItsDecisionAsItsApproval) {
  {
    pqxx::connection connection(db_.url());
    ApplyPostgresMigrations(
        connection,
        std::vector<EmbeddedFile>(kPostgresMigrations.begin(), kPostgresMigrations.begin() + 14));
  }
  db_.Execute(kSchema14ReviewsSeed);
  Stores stores = OpenPgStores(Config());  // applies 0015
  const auto approvals = [&](ReviewId id) { return stores.documents->FindReview(id)->approvals; };
  EXPECT_EQ(approvals(1), (std::vector<Approval>{{"\u5f20\u4e09", "\u540c\u610f",
                                                  TimePoint{milliseconds(1798000000123)}}}));
  EXPECT_EQ(approvals(2), std::vector<Approval>{});
  EXPECT_EQ(approvals(3), std::vector<Approval>{});
  EXPECT_EQ(approvals(4),
            (std::vector<Approval>{{"bob", std::nullopt, TimePoint{milliseconds(400)}}}));
  for (const ReviewId id : {1, 2, 3, 4}) {
    EXPECT_EQ(stores.documents->FindReview(id)->required_approvals, 1) << id;
  }
  EXPECT_EQ(db_.Count("SELECT count(*) FROM kh_review_approval"), 2);
}

// Migration 0017 on a database of schema 16 (formats): the documents written before it were
// written as plain text and stay text; a document written after it is Markdown unless it says so.
TEST_F(PgDocumentStoreTest, Migration0017MarksTheDocumentsWrittenBeforeItText) {
  {
    pqxx::connection connection(db_.url());
    ApplyPostgresMigrations(
        connection,
        std::vector<EmbeddedFile>(kPostgresMigrations.begin(), kPostgresMigrations.begin() + 16));
  }
  db_.Execute(kSchema14ReviewsSeed);
  Stores stores = OpenPgStores(Config());  // applies 0017
  for (const DocumentId id : {1, 2, 3}) {
    EXPECT_EQ(stores.documents->FindDocument(id)->format, DocumentFormat::kText) << id;
  }
  EXPECT_EQ(db_.Count("SELECT count(*) FROM kh_document WHERE format = 'text'"), 3);
  // The column's default is markdown now: a row written without naming it, as by hand.
  db_.Execute(
      "INSERT INTO kh_document (id, title, status, version, author_id, ingest_status, created_at,"
      " updated_at) VALUES (4, 'd', 'draft', 1, 'alice', 'none', 0, 0)");
  EXPECT_EQ(stores.documents->FindDocument(4)->format, DocumentFormat::kMarkdown);
}

// Migration 0008 on a database of schema 7 (ADR 0009): the chunks written before it get docgate's
// analyzer's terms when the store opens, so search finds them by any word.
TEST_F(PgDocumentStoreTest, Migration0008IndexesTheChunksAlreadyWrittenWithTheAnalyzer) {
  {
    pqxx::connection connection(db_.url());
    ApplyPostgresMigrations(connection, std::vector<EmbeddedFile>(kPostgresMigrations.begin(),
                                                                  kPostgresMigrations.begin() + 7));
  }
  db_.Execute(kSchema7ChunksSeed);
  Stores stores = OpenPgStores(Config());  // applies 0008, then analyses the two chunks
  EXPECT_EQ(db_.Count("SELECT count(*) FROM kh_document_chunk WHERE search_terms IS NULL"), 0);
  for (const char* query : {"权限", "死信队列", "redis", "消息"}) {
    // 权限, 死信队列, redis, 消息 (the title's and the second chunk's)
    EXPECT_FALSE(stores.chunks->Search(ParseSearchQuery(query), 10, SearchGrouping::kChunk).empty())
        << query;
  }
  EXPECT_EQ(stores.chunks->Search(ParseSearchQuery("死信"), 10, SearchGrouping::kChunk).size(),
            1u);  // 死信
}

// Migration 0009: the terms written by the analyzer of 0008 (a Russian word unstemmed) are
// cleared and written again when the store opens, now stemmed.
TEST_F(PgDocumentStoreTest, Migration0009AnalysesEveryChunkAgain) {
  {
    pqxx::connection connection(db_.url());
    ApplyPostgresMigrations(connection, std::vector<EmbeddedFile>(kPostgresMigrations.begin(),
                                                                  kPostgresMigrations.begin() + 8));
  }
  db_.Execute(kSchema7ChunksSeed);
  db_.Execute(
      "UPDATE kh_document_chunk SET content = '\u0431\u0430\u0437\u044b',"
      " search_terms = '''\u0431\u0430\u0437\u044b'':3B'");  // базы, as 0008 wrote it
  Stores stores = OpenPgStores(Config());  // applies 0009, then analyses the chunks again
  EXPECT_EQ(stores.chunks
                ->Search(ParseSearchQuery("\u0431\u0430\u0437\u0430"), 10, SearchGrouping::kChunk)
                .size(),
            2u)
      << "база finds базы by its stem";
}

TEST_F(PgDocumentStoreTest, RestartsApplyNothingAgainAndKeepTheData) {
  DocumentId id = 0;
  {
    Stores store = OpenPgStores(Config());
    id = AddDraft(*store.documents, clock_.Now()).id;
  }
  constexpr char kRecorded[] =
      "SELECT version, name, applied_at FROM schema_migrations ORDER BY version";
  const auto recorded = db_.Execute(kRecorded);
  PgSession::Migrate(Config());
  Stores store = OpenPgStores(Config());
  const auto again = db_.Execute(kRecorded);
  ASSERT_EQ(again.size(), recorded.size());
  ASSERT_EQ(again.size(), kPostgresMigrations.size());
  for (int i = 0; i < static_cast<int>(again.size()); ++i) {
    EXPECT_EQ(again[i][2].as<std::int64_t>(), recorded[i][2].as<std::int64_t>());
    EXPECT_GT(again[i][2].as<std::int64_t>(), 1'700'000'000'000);
  }
  EXPECT_NE(store.documents->FindDocument(id), std::nullopt);
}

TEST_F(PgDocumentStoreTest, DatabaseFromANewerDocgateIsRefused) {
  PgSession::Migrate(Config());
  db_.Execute("INSERT INTO schema_migrations VALUES (999, '0999_future.sql', 1798000000000)");
  const std::string error = OpenError<StorageError>(Config());
  EXPECT_THAT(error, HasSubstr("0999_future.sql"));
  EXPECT_THAT(error, HasSubstr("newer docgate"));
}

TEST_F(PgDocumentStoreTest, MigrationRecordedUnderAnotherNameIsRefused) {
  PgSession::Migrate(Config());
  db_.Execute("UPDATE schema_migrations SET name = '0001_other.sql'");
  const std::string error = OpenError<StorageError>(Config());
  EXPECT_THAT(error, HasSubstr("0001_other.sql"));
  EXPECT_THAT(error, HasSubstr("0001_init.sql"));
}

// Only the row locks protect here: 50 transactions decide one review the way the service does.
TEST_F(PgDocumentStoreTest, RowLocksLetExactlyOneOfFiftyDecideAReview) {
  Stores store = OpenPgStores(Config(16));
  const Review submitted = AddSubmitted(*store.documents, clock_.Now());
  const Tally tally = Race([&](int i) {
    auto tx = store.documents->Begin();
    auto review = tx->LockReview(submitted.id);
    auto doc = tx->LockDocument(review->document_id);
    const Actor& reviewer = i % 2 == 0 ? kBob : kDave;
    const Status outcome =
        i % 2 == 0 ? Approve(*doc, *review, reviewer, {}, "fine", clock_.Now())
                   : Reject(*doc, *review, reviewer, {}, "no", clock_.Now());
    if (!outcome) return false;
    tx->UpdateReview(*review);
    tx->UpdateDocument(*doc);
    tx->AppendEvent(EventFor(i % 2 == 0 ? EventType::kApproved : EventType::kRejected, *doc,
                             *review, reviewer, "e-" + std::to_string(i), clock_.Now()));
    tx->Commit();
    return true;
  });
  EXPECT_EQ(tally.accepted, 1);
  EXPECT_EQ(tally.refused, kRacers - 1);
  EXPECT_EQ(OutboxRows(), 1);
  const Review review = *store.documents->FindReview(submitted.id);
  const Document doc = *store.documents->FindDocument(submitted.document_id);
  EXPECT_NE(review.status, ReviewStatus::kPending);
  EXPECT_EQ(doc.status, review.status == ReviewStatus::kApproved ? DocumentStatus::kApproved
                                                                 : DocumentStatus::kRejected);
  EXPECT_EQ(doc.current_review_id, std::nullopt);
}

TEST_F(PgDocumentStoreTest, RowLocksLetExactlyOneOfFiftySubmitADraft) {
  Stores store = OpenPgStores(Config(16));
  const Document draft = AddDraft(*store.documents, clock_.Now());
  const Tally tally = Race([&](int i) {
    auto tx = store.documents->Begin();
    auto doc = tx->LockDocument(draft.id);
    auto review = Submit(*doc, kAlice, clock_.Now());
    if (!review) return false;
    review->id = tx->InsertReview(*review);
    AttachReview(*doc, review->id);
    tx->UpdateDocument(*doc);
    tx->AppendEvent(EventFor(EventType::kSubmitted, *doc, *review, kAlice, "e-" + std::to_string(i),
                             clock_.Now()));
    tx->Commit();
    return true;
  });
  EXPECT_EQ(tally.accepted, 1);
  EXPECT_EQ(tally.refused, kRacers - 1);
  EXPECT_EQ(db_.Count("SELECT count(*) FROM kh_document_review WHERE status = 'pending'"), 1);
  EXPECT_EQ(db_.Count("SELECT count(*) FROM kh_document_review"), 1);
  EXPECT_EQ(OutboxRows(), 1);
  EXPECT_EQ(store.documents->FindDocument(draft.id)->status, DocumentStatus::kPendingReview);
}

// The same races through the use cases, with the outer gate down (degraded mode).
class PgServiceRaceTest : public PgDocumentStoreTest {
 protected:
  PgServiceRaceTest() { gate_.SetBackendDown(true); }

  Stores stores_ = OpenPgStores(Config(16));
  FakeRandom random_;
  FakeLockGate gate_{clock_, random_};
  CountingWakeup wakeup_;
  DocumentService service_{*stores_.documents, gate_, clock_, random_, wakeup_};
};

TEST_F(PgServiceRaceTest, FiftyMixedDecisionsWithoutTheGateGiveOneSuccess) {
  const Document doc = *service_.Create(kAlice, "Guide", "body");
  const ReviewId review = service_.Submit(kAlice, doc.id)->review.id;
  const std::int64_t events_before = OutboxRows();
  const Tally tally = Race([&](int i) {
    return Accepted(i % 2 == 0 ? service_.Approve(kBob, review, std::nullopt)
                               : service_.Reject(kDave, review, "not yet"));
  });
  EXPECT_EQ(tally.accepted, 1);
  EXPECT_EQ(tally.refused, kRacers - 1);
  EXPECT_EQ(OutboxRows() - events_before, 1);
}

TEST_F(PgServiceRaceTest, FiftySubmitsWithoutTheGateOpenOneReview) {
  const Document doc = *service_.Create(kAlice, "Guide", "body");
  const Tally tally = Race([&](int) { return Accepted(service_.Submit(kAlice, doc.id)); });
  EXPECT_EQ(tally.accepted, 1);
  EXPECT_EQ(tally.refused, kRacers - 1);
  EXPECT_EQ(db_.Count("SELECT count(*) FROM kh_document_review WHERE status = 'pending'"), 1);
  EXPECT_EQ(OutboxRows(), 1);
}

TEST_F(PgDocumentStoreTest, ReadsTakeNoRowLocksButLocksWaitUpToTheStatementTimeout) {
  PgConfig config = Config();
  config.statement_timeout = milliseconds(300);
  Stores store = OpenPgStores(config);
  const Review review = AddSubmitted(*store.documents, clock_.Now());
  auto holder = store.documents->Begin();
  ASSERT_TRUE(holder->LockReview(review.id));
  ASSERT_TRUE(holder->LockDocument(review.document_id));

  EXPECT_NE(store.documents->FindDocument(review.document_id), std::nullopt);
  EXPECT_NE(store.documents->FindReview(review.id), std::nullopt);
  auto reader = store.documents->Begin();
  EXPECT_NE(reader->ReadDocument(review.document_id), std::nullopt);
  EXPECT_NE(reader->ReadContent(review.document_id, 1), std::nullopt);
  reader.reset();

  auto waiter = store.documents->Begin();
  EXPECT_THROW(waiter->LockDocument(review.document_id), StorageUnavailable);
  waiter.reset();
  auto review_waiter = store.documents->Begin();
  EXPECT_THROW(review_waiter->LockReview(review.id), StorageUnavailable);
  review_waiter.reset();

  holder->Commit();
  holder.reset();
  auto next = store.documents->Begin();
  EXPECT_NE(next->LockDocument(review.document_id), std::nullopt);
}

TEST_F(PgDocumentStoreTest, TextWithANulCharacterIsRefusedNotTruncated) {
  Stores store = OpenPgStores(Config());
  const Document doc = AddDraft(*store.documents, clock_.Now());
  auto tx = store.documents->Begin();
  EXPECT_THROW(tx->PutVersion(DocumentVersion{
                   doc.id, 2, doc.title, std::string("before\0after", 12), "alice", clock_.Now()}),
               StorageError);
  tx.reset();
  EXPECT_EQ(store.documents->FindContent(doc.id, 2), std::nullopt);
}

TEST_F(PgDocumentStoreTest, UnknownEnumValueReadBackIsStorageError) {
  Stores store = OpenPgStores(Config());
  const DocumentId id = AddDraft(*store.documents, clock_.Now()).id;
  db_.Execute(
      "ALTER TABLE kh_document DROP CONSTRAINT kh_document_status_check;"
      " UPDATE kh_document SET status = 'archived'");
  EXPECT_THROW(store.documents->FindDocument(id), StorageError);
  EXPECT_THROW(store.documents->ListDocuments({}), StorageError);
}

TEST_F(PgDocumentStoreTest, InvalidConfigIsRefusedWithTheReason) {
  PgConfig config = Config();
  config.pool_size = 0;
  EXPECT_THAT(OpenError<StorageUnavailable>(config), HasSubstr("pool_size"));
  config = Config();
  config.url = "postgresql://[::1";
  EXPECT_THAT(OpenError<StorageUnavailable>(config), HasSubstr("malformed database URL"));
  config = Config();
  config.url.clear();
  EXPECT_THAT(OpenError<StorageUnavailable>(config), HasSubstr("url"));
}

}  // namespace
}  // namespace docgate
