#include "adapters/sqlite/sqlite_session.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "adapters/sqlite/sqlite_connection.h"
#include "adapters/sqlite/sqlite_migrations.h"
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
#include "runtime/open_stores.h"
#include "support/schema14_reviews_seed.h"
#include "support/schema6_versions_seed.h"
#include "support/schema7_chunks_seed.h"
#include "support/temp_dir.h"

namespace docgate {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;
using ::testing::HasSubstr;

// The database seen from outside the store, as an operator's sqlite3 shell would.
class RawDatabase {
 public:
  explicit RawDatabase(const fs::path& path) {
    if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK)
      throw std::runtime_error(sqlite3_errmsg(db_));
    sqlite3_busy_timeout(db_, 5000);
  }
  RawDatabase(const RawDatabase&) = delete;
  RawDatabase& operator=(const RawDatabase&) = delete;
  ~RawDatabase() { sqlite3_close(db_); }

  void Execute(const std::string& sql) {
    char* message = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
      const std::string text = message;
      sqlite3_free(message);
      throw std::runtime_error(text);
    }
  }

  // Every row, each column as text ("NULL" for null).
  std::vector<std::vector<std::string>> Rows(const std::string& sql) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
      throw std::runtime_error(sqlite3_errmsg(db_));
    }
    std::vector<std::vector<std::string>> rows;
    while (sqlite3_step(stmt) == SQLITE_ROW) {
      std::vector<std::string> row;
      for (int c = 0; c < sqlite3_column_count(stmt); ++c) {
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
        row.emplace_back(text == nullptr ? "NULL" : text);
      }
      rows.push_back(std::move(row));
    }
    sqlite3_finalize(stmt);
    return rows;
  }

 private:
  sqlite3* db_ = nullptr;
};

struct SqliteStoreFactory {
  TempDir dir;
  Stores Make() {
    return OpenSqliteStores(
        SqliteConfig{.path = dir.path() / "docgate.db", .outbox_claim_ttl = kContractClaimTtl});
  }
  std::shared_ptr<OutboxStore> AnotherInstance() { return Make().outbox; }
  void AgeClaims(milliseconds by) {
    RawDatabase(dir.path() / "docgate.db")
        .Execute("UPDATE kh_outbox SET claimed_until = claimed_until - " +
                 std::to_string(by.count()));
  }
};

}  // namespace

INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, DocumentStoreContract, ::testing::Types<SqliteStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, DocumentVersionsContract,
                               ::testing::Types<SqliteStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, RevisionLifecycleContract,
                               ::testing::Types<SqliteStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, ReviewQuorumContract, ::testing::Types<SqliteStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, ReviewTeamContract, ::testing::Types<SqliteStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, OutboxStoreContract, ::testing::Types<SqliteStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, IdempotencyStoreContract,
                               ::testing::Types<SqliteStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, InboxStoreContract, ::testing::Types<SqliteStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, OutboxRequeueContract, ::testing::Types<SqliteStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, PreviewStoreContract, ::testing::Types<SqliteStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, ChunkIndexContract, ::testing::Types<SqliteStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, EmbeddingStoreContract,
                               ::testing::Types<SqliteStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, UserDirectoryContract, ::testing::Types<SqliteStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, SessionStoreContract, ::testing::Types<SqliteStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, WebhookStoreContract, ::testing::Types<SqliteStoreFactory>);

namespace {

class SqliteDocumentStoreTest : public ::testing::Test {
 protected:
  SqliteConfig Config(int pool_size = 4, milliseconds busy_timeout = milliseconds(5000)) const {
    return SqliteConfig{.path = db_path_, .pool_size = pool_size, .busy_timeout = busy_timeout};
  }
  Stores Open() { return OpenSqliteStores(Config()); }
  std::string OpenError(const SqliteConfig& config) {
    try {
      OpenSqliteStores(config);
    } catch (const StorageUnavailable& e) {
      return e.what();
    }
    return "opened without an error";
  }
  static DocumentId AddDocument(DocumentStore& store) {
    auto tx = store.Begin();
    const DocumentId id = tx->InsertDocument(ContractDocument());
    tx->PutVersion(ContractVersion(id, 1, "body", "alice"));
    tx->AppendEvent(ContractEvent("e-" + std::to_string(id), id));
    tx->Commit();
    return id;
  }

  TempDir dir_;
  fs::path db_path_ = dir_.path() / "data" / "docgate.db";
};

// Migration 0007 on a database of schema 6 (ADR 0008): every kept version gets the document's
// title, each editor's newest version is recorded, and the drafts no review was bound to that are
// not the current version are dropped.
TEST_F(SqliteDocumentStoreTest, Migration0007KeepsSubmittedVersionsAndRecordsEveryEditor) {
  fs::create_directories(db_path_.parent_path());
  {
    SqliteConnection connection(db_path_.string(), milliseconds(5000));
    ApplySqliteMigrations(connection, std::vector<EmbeddedFile>(kSqliteMigrations.begin(),
                                                                kSqliteMigrations.begin() + 6));
    connection.Execute(kSchema6VersionsSeed);
  }
  Stores stores = Open();  // applies 0007
  RawDatabase raw(db_path_);
  EXPECT_EQ(raw.Rows("SELECT version, title, content FROM kh_document_content ORDER BY version"),
            (std::vector<std::vector<std::string>>{{"2", kSchema6SeedTitle, "v2"},
                                                   {"4", kSchema6SeedTitle, "v4"}}));
  EXPECT_EQ(raw.Rows("SELECT editor, last_version FROM kh_document_editor"
                     " ORDER BY last_version DESC"),
            (std::vector<std::vector<std::string>>{
                {"alice", "4"}, {"carol", "3"}, {"\u5f20\u4e09", "2"}}));
  auto tx = stores.documents->Begin();
  EXPECT_EQ(tx->ListEditors(1, 2), (std::vector<UserId>{"alice", "carol"}))
      << "carol wrote the dropped version 3 after the approved one";
}

// Migration 0008 on a database of schema 7 (ADR 0009): the FTS5 index is rebuilt with docgate's
// tokenizer, so search finds the chunks written before it by any word.
TEST_F(SqliteDocumentStoreTest, Migration0008IndexesTheChunksAlreadyWrittenWithTheAnalyzer) {
  fs::create_directories(db_path_.parent_path());
  {
    SqliteConnection connection(db_path_.string(), milliseconds(5000));
    ApplySqliteMigrations(connection, std::vector<EmbeddedFile>(kSqliteMigrations.begin(),
                                                                kSqliteMigrations.begin() + 7));
    connection.Execute(kSchema7ChunksSeed);
  }
  Stores stores = Open();  // applies 0008
  for (const char* query : {"\u6743\u9650", "\u6b7b\u4fe1\u961f\u5217", "redis", "\u6d88\u606f"}) {
    // 权限, 死信队列, redis, 消息 (the title's and the second chunk's)
    EXPECT_FALSE(stores.chunks->Search(ParseSearchQuery(query), 10, SearchGrouping::kChunk).empty())
        << query;
  }
  EXPECT_EQ(
      stores.chunks->Search(ParseSearchQuery("\u6b7b\u4fe1"), 10, SearchGrouping::kChunk).size(),
      1u);  // 死信
}

// Migration 0015 on a database of schema 14 (review quorums): every review needs one approval, and
// each approved one holds it, its decision's; the others hold none.
TEST_F(SqliteDocumentStoreTest, Migration0015GivesEachApprovedReviewItsDecisionAsItsApproval) {
  fs::create_directories(db_path_.parent_path());
  {
    SqliteConnection connection(db_path_.string(), milliseconds(5000));
    ApplySqliteMigrations(connection, std::vector<EmbeddedFile>(kSqliteMigrations.begin(),
                                                                kSqliteMigrations.begin() + 14));
    connection.Execute(kSchema14ReviewsSeed);
  }
  Stores stores = Open();  // applies 0015
  const auto approvals = [&](ReviewId id) { return stores.documents->FindReview(id)->approvals; };
  EXPECT_EQ(approvals(1), (std::vector<Approval>{{"\u5f20\u4e09", "\u540c\u610f",
                                                  TimePoint{milliseconds(1798000000123)}}}));
  EXPECT_EQ(approvals(2), std::vector<Approval>{});
  EXPECT_EQ(approvals(3), std::vector<Approval>{});
  EXPECT_EQ(approvals(4),
            (std::vector<Approval>{{"bob", std::nullopt, TimePoint{milliseconds(400)}}}));
  // Migration 0018 kept them in one b-tree: a WITHOUT ROWID table has no index of its key beside
  // it.
  EXPECT_EQ(RawDatabase(db_path_).Rows(
                "SELECT name FROM sqlite_schema WHERE tbl_name = 'kh_review_approval'"),
            (std::vector<std::vector<std::string>>{{"kh_review_approval"}}));
  for (const ReviewId id : {1, 2, 3, 4}) {
    EXPECT_EQ(stores.documents->FindReview(id)->required_approvals, 1) << id;
  }
  EXPECT_EQ(RawDatabase(db_path_).Rows("SELECT count(*) FROM kh_review_approval"),
            (std::vector<std::vector<std::string>>{{"2"}}));
}

// Migration 0017 on a database of schema 16 (formats): the documents written before it were
// written as plain text and stay text; a document written after it is Markdown unless it says so.
TEST_F(SqliteDocumentStoreTest, Migration0017MarksTheDocumentsWrittenBeforeItText) {
  fs::create_directories(db_path_.parent_path());
  {
    SqliteConnection connection(db_path_.string(), milliseconds(5000));
    ApplySqliteMigrations(connection, std::vector<EmbeddedFile>(kSqliteMigrations.begin(),
                                                                kSqliteMigrations.begin() + 16));
    connection.Execute(kSchema14ReviewsSeed);
  }
  Stores stores = Open();  // applies 0017
  for (const DocumentId id : {1, 2, 3}) {
    EXPECT_EQ(stores.documents->FindDocument(id)->format, DocumentFormat::kText) << id;
  }
  auto tx = stores.documents->Begin();
  const DocumentId id = tx->InsertDocument(ContractDocument());
  tx->Commit();
  EXPECT_EQ(stores.documents->FindDocument(id)->format, DocumentFormat::kMarkdown);
}

// Migration 0016 builds the outbox and the inbox anew (SQLite cannot change their CHECKs): every
// row keeps every column, the indexes are back, the outbox's sequence continues after the highest
// id ever used (rows 4 and 5 were pruned), and the review events are accepted.
TEST_F(SqliteDocumentStoreTest, Migration16KeepsTheOutboxAndInboxWhole) {
  fs::create_directories(db_path_.parent_path());
  const std::string outbox_rows =
      "SELECT id, event_id, event_type, document_id, review_id, version, actor_id, occurred_at,"
      " delivered_at, claimed_by, claimed_until, attempts, next_attempt_at, last_error"
      " FROM kh_outbox ORDER BY id";
  const std::string inbox_rows =
      "SELECT consumer, event_id, state, attempts, last_error, updated_at, event_type,"
      " document_id, review_id, version, actor_id, occurred_at FROM kh_consumer_inbox"
      " ORDER BY consumer, event_id";
  const std::string indexes =
      "SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL"
      " AND tbl_name IN ('kh_outbox', 'kh_consumer_inbox') ORDER BY name";
  std::vector<std::vector<std::string>> outbox_before;
  std::vector<std::vector<std::string>> inbox_before;
  std::vector<std::vector<std::string>> indexes_before;
  {
    SqliteConnection connection(db_path_.string(), milliseconds(5000));
    ApplySqliteMigrations(connection, std::vector<EmbeddedFile>(kSqliteMigrations.begin(),
                                                                kSqliteMigrations.begin() + 15));
    connection.Execute(
        "INSERT INTO kh_outbox (id, event_id, event_type, document_id, review_id, version,"
        " actor_id, occurred_at, delivered_at, claimed_by, claimed_until, attempts,"
        " next_attempt_at, last_error)"
        " VALUES (1, 'e-1', 'document.submitted', 1, 1, 1, '\u5f20\u4e09', 10, 20, NULL, NULL,"
        "         0, 0, NULL),"
        "        (2, 'e-2', 'document.approved', 1, 1, 1, 'bob', 30, NULL, 'instance-a', 99, 2,"
        "         50, 'broker down'),"
        "        (3, 'e-3', 'document.rejected', 2, 2, 1, 'bob', 40, NULL, NULL, NULL, 0, 0, NULL),"
        "        (4, 'e-4', 'document.withdrawn', 3, 3, 1, 'alice', 41, 42, NULL, NULL, 0, 0, "
        "NULL),"
        "        (5, 'e-5', 'document.submitted', 3, 4, 1, 'alice', 43, 44, NULL, NULL, 0, 0, "
        "NULL);"
        "DELETE FROM kh_outbox WHERE id IN (4, 5);"
        "INSERT INTO kh_consumer_inbox (consumer, event_id, state, attempts, last_error,"
        " updated_at, event_type, document_id, review_id, version, actor_id, occurred_at)"
        " VALUES ('ingest', 'e-2', 'parked', 5, '\u5206\u8bcd\u5931\u8d25', 60,"
        "         'document.approved', 1, 1, 1, 'bob', 30),"
        "        ('preview', 'e-1', 'done', 0, NULL, 70, NULL, NULL, NULL, NULL, NULL, NULL);");
    RawDatabase raw(db_path_);
    outbox_before = raw.Rows(outbox_rows);
    inbox_before = raw.Rows(inbox_rows);
    indexes_before = raw.Rows(indexes);
  }
  Open();  // applies 0016
  RawDatabase raw(db_path_);
  EXPECT_EQ(raw.Rows(outbox_rows), outbox_before);
  EXPECT_EQ(raw.Rows(inbox_rows), inbox_before);
  EXPECT_EQ(raw.Rows(indexes), indexes_before);
  EXPECT_EQ(indexes_before.size(), 7u);
  raw.Execute(
      "INSERT INTO kh_outbox (event_id, event_type, document_id, review_id, version, actor_id,"
      " occurred_at, reviewer_id) VALUES ('e-6', 'review.voted', 1, 1, 1, 'carol', 80, 'carol')");
  EXPECT_EQ(raw.Rows("SELECT id FROM kh_outbox WHERE event_id = 'e-6'"),
            (std::vector<std::vector<std::string>>{{"6"}}));
  EXPECT_THROW(raw.Execute("INSERT INTO kh_outbox (event_id, event_type, document_id, review_id,"
                           " version, actor_id, occurred_at)"
                           " VALUES ('e-7', 'review.bogus', 1, 1, 1, 'carol', 90)"),
               std::exception);
}

TEST_F(SqliteDocumentStoreTest, CreatesTheMissingDirectoryAndTheFile) {
  db_path_ = dir_.path() / "a" / "b" / "docgate.db";
  Open();
  EXPECT_TRUE(fs::is_regular_file(db_path_));
}

// The database holds every document: what docgate creates is the owner's alone, and what exists
// keeps the mode the operator gave it.
TEST_F(SqliteDocumentStoreTest, CreatesTheDirectoriesAndTheFilesForTheOwnerAlone) {
  const auto mode = [](const fs::path& path) {
    return fs::status(path).permissions() & fs::perms::all;
  };
  fs::permissions(dir_.path(), fs::perms::owner_all | fs::perms::group_read |
                                   fs::perms::group_exec | fs::perms::others_read |
                                   fs::perms::others_exec);
  db_path_ = dir_.path() / "a" / "b" / "docgate.db";
  Stores stores = Open();
  AddDocument(*stores.documents);  // the -wal file exists while the store is open
  EXPECT_EQ(mode(dir_.path() / "a"), fs::perms::owner_all);
  EXPECT_EQ(mode(dir_.path() / "a" / "b"), fs::perms::owner_all);
  const fs::perms owner_rw = fs::perms::owner_read | fs::perms::owner_write;
  EXPECT_EQ(mode(db_path_), owner_rw);
  ASSERT_TRUE(fs::exists(db_path_.string() + "-wal"));
  EXPECT_EQ(mode(db_path_.string() + "-wal"), owner_rw);
  EXPECT_EQ(mode(dir_.path()), fs::perms::owner_all | fs::perms::group_read |
                                   fs::perms::group_exec | fs::perms::others_read |
                                   fs::perms::others_exec)
      << "an existing directory keeps its mode";
}

TEST_F(SqliteDocumentStoreTest, JournalModeIsWal) {
  Open();
  RawDatabase raw(db_path_);
  EXPECT_EQ(raw.Rows("PRAGMA journal_mode"), (std::vector<std::vector<std::string>>{{"wal"}}));
}

TEST_F(SqliteDocumentStoreTest, MigrationsAreRecordedAndAppliedOnceAcrossReopens) {
  Open();
  const auto recorded = RawDatabase(db_path_).Rows(
      "SELECT version, name, applied_at > 1700000000000 FROM schema_migrations ORDER BY version");
  EXPECT_EQ(recorded, (std::vector<std::vector<std::string>>{
                          {"1", "0001_init.sql", "1"},
                          {"2", "0002_outbox_relay.sql", "1"},
                          {"3", "0003_idempotency.sql", "1"},
                          {"4", "0004_consumers.sql", "1"},
                          {"5", "0005_version_editors.sql", "1"},
                          {"6", "0006_inbox_retention.sql", "1"},
                          {"7", "0007_revisions.sql", "1"},
                          {"8", "0008_text_analyzer.sql", "1"},
                          {"9", "0009_stems_of_more_languages.sql", "1"},
                          {"10", "0010_embeddings.sql", "1"},
                          {"11", "0011_search_statistics.sql", "1"},
                          {"12", "0012_every_editor_of_a_version.sql", "1"},
                          {"13", "0013_users.sql", "1"},
                          {"14", "0014_sessions.sql", "1"},
                          {"15", "0015_review_approvals.sql", "1"},
                          {"16", "0016_review_teams.sql", "1"},
                          {"17", "0017_formats.sql", "1"},
                          {"18", "0018_approvals_without_rowid.sql", "1"},
                          {"19", "0019_webhooks.sql", "1"}}));
  const auto first = RawDatabase(db_path_).Rows("SELECT * FROM schema_migrations");
  Open();
  Open();
  EXPECT_EQ(RawDatabase(db_path_).Rows("SELECT * FROM schema_migrations"), first);
}

TEST_F(SqliteDocumentStoreTest, DataSurvivesReopen) {
  DocumentId id = 0;
  std::optional<Document> before;
  {
    Stores store = Open();
    id = AddDocument(*store.documents);
    before = store.documents->FindDocument(id);
  }
  Stores store = Open();
  EXPECT_EQ(store.documents->FindDocument(id), before);
  EXPECT_EQ(store.documents->FindContent(id, 1), "body");
  ASSERT_EQ(store.outbox->ClaimPending(10).size(), 1u);
  EXPECT_EQ(store.outbox->ClaimPending(10)[0].event_id, "e-" + std::to_string(id));
}

TEST_F(SqliteDocumentStoreTest, IdsAreNotReusedAfterDeletion) {
  Stores store = Open();
  const DocumentId first = AddDocument(*store.documents);
  RawDatabase(db_path_).Execute(
      "DELETE FROM kh_outbox; DELETE FROM kh_document_content;"
      " DELETE FROM kh_document");
  EXPECT_GT(AddDocument(*store.documents), first);
}

TEST_F(SqliteDocumentStoreTest, FileThatIsNotADatabaseIsRefusedClearly) {
  fs::create_directories(db_path_.parent_path());
  std::ofstream(db_path_) << "these are somebody's notes, not a database\n";
  const std::string error = OpenError(Config());
  EXPECT_THAT(error, HasSubstr(db_path_.string()));
  EXPECT_THAT(error, HasSubstr("not a database"));
}

TEST_F(SqliteDocumentStoreTest, ForeignDatabaseIsRefusedAndLeftUntouched) {
  fs::create_directories(db_path_.parent_path());
  RawDatabase(db_path_).Execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)");
  EXPECT_THAT(OpenError(Config()), HasSubstr("not a docgate database"));
  EXPECT_EQ(RawDatabase(db_path_).Rows("SELECT name FROM sqlite_schema WHERE type = 'table'"),
            (std::vector<std::vector<std::string>>{{"users"}}));
}

TEST_F(SqliteDocumentStoreTest, DatabaseFromANewerDocgateIsRefused) {
  Open();
  RawDatabase(db_path_).Execute(
      "INSERT INTO schema_migrations VALUES (999, '0999_future.sql', 1798000000000)");
  const std::string error = OpenError(Config());
  EXPECT_THAT(error, HasSubstr("0999_future.sql"));
  EXPECT_THAT(error, HasSubstr("newer docgate"));
}

TEST_F(SqliteDocumentStoreTest, MigrationRecordedUnderAnotherNameIsRefused) {
  Open();
  RawDatabase(db_path_).Execute("UPDATE schema_migrations SET name = '0001_other.sql'");
  const std::string error = OpenError(Config());
  EXPECT_THAT(error, HasSubstr("0001_other.sql"));
  EXPECT_THAT(error, HasSubstr("0001_init.sql"));
}

TEST_F(SqliteDocumentStoreTest, UnopenablePathGivesStorageUnavailable) {
  fs::create_directories(db_path_);  // a directory where the file should be
  EXPECT_THAT(OpenError(Config()), HasSubstr("cannot open"));
}

TEST_F(SqliteDocumentStoreTest, InvalidConfigGivesStorageUnavailable) {
  EXPECT_THAT(OpenError(Config(0)), HasSubstr("pool_size"));
  EXPECT_THAT(OpenError(SqliteConfig{.path = ":memory:"}), HasSubstr("path"));
}

TEST_F(SqliteDocumentStoreTest, UnknownEnumValueReadBackIsStorageError) {
  Stores store = Open();
  const DocumentId id = AddDocument(*store.documents);
  RawDatabase raw(db_path_);
  raw.Execute("PRAGMA ignore_check_constraints = ON; UPDATE kh_document SET status = 'archived'");
  EXPECT_THROW(store.documents->FindDocument(id), StorageError);
  EXPECT_THROW(store.documents->ListDocuments({}), StorageError);
}

TEST_F(SqliteDocumentStoreTest, MarkDeliveredRecordsTheFirstDeliveryTime) {
  Stores store = Open();
  AddDocument(*store.documents);
  const std::int64_t sequence = store.outbox->ClaimPending(1).at(0).sequence;
  store.outbox->MarkDelivered({sequence}, ContractTime(1));
  store.outbox->MarkDelivered({sequence}, ContractTime(2));
  EXPECT_EQ(RawDatabase(db_path_).Rows("SELECT delivered_at FROM kh_outbox"),
            (std::vector<std::vector<std::string>>{
                {std::to_string(ContractTime(1).time_since_epoch().count())}}));
}

// Another process holding the write lock: BEGIN IMMEDIATE waits out the busy timeout.
TEST_F(SqliteDocumentStoreTest, DatabaseBusyBeyondTheTimeoutGivesStorageUnavailable) {
  Stores holder = OpenSqliteStores(Config());
  Stores waiter = OpenSqliteStores(Config(4, milliseconds(50)));
  auto held = holder.documents->Begin();
  EXPECT_THROW(waiter.documents->Begin(), StorageUnavailable);
  EXPECT_THROW(waiter.outbox->MarkDelivered({1}, ContractTime()), StorageUnavailable);
  held.reset();
  EXPECT_NE(waiter.documents->Begin(), nullptr);
}

TEST_F(SqliteDocumentStoreTest, SecondWriterInTheProcessGivesUpAfterTheTimeout) {
  Stores store = OpenSqliteStores(Config(4, milliseconds(50)));
  const DocumentId id = AddDocument(*store.documents);
  auto held = store.documents->Begin();
  EXPECT_THROW(store.documents->Begin(), StorageUnavailable);
  EXPECT_THROW(store.inbox->BeginConsumer(), StorageUnavailable);  // one writer slot per file
  EXPECT_NE(store.documents->FindDocument(id), std::nullopt);  // readers do not wait for the writer
}

TEST_F(SqliteDocumentStoreTest, ExhaustedPoolGivesStorageUnavailableAndPingFalse) {
  Stores store = OpenSqliteStores(Config(1, milliseconds(50)));
  auto held = store.documents->Begin();
  EXPECT_THROW(store.documents->FindDocument(1), StorageUnavailable);
  EXPECT_FALSE(store.documents->Ping());
  EXPECT_FALSE(store.previews->Ping());  // one pool shared by every store of the file
  held.reset();
  EXPECT_TRUE(store.documents->Ping());
  EXPECT_TRUE(store.previews->Ping());
}

// Two stores on one file behave like two processes: their writers meet in sqlite's busy handler.
// No update is lost, and the only failure that may escape is StorageUnavailable.
TEST_F(SqliteDocumentStoreTest, IncrementsFromTwoProcessesLoseNoUpdate) {
  Stores first = OpenSqliteStores(Config(2));
  Stores second = OpenSqliteStores(Config(2));
  const DocumentId id = AddDocument(*first.documents);
  std::atomic<int> committed{0};
  std::atomic<int> unavailable{0};
  std::atomic<int> other_failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    DocumentStore& store = t % 2 == 0 ? *first.documents : *second.documents;
    threads.emplace_back([&store, &committed, &unavailable, &other_failures, id] {
      for (int i = 0; i < 20; ++i) {
        try {
          auto tx = store.Begin();
          Document doc = *tx->LockDocument(id);
          doc.version += 1;
          tx->UpdateDocument(doc);
          tx->Commit();
          ++committed;
        } catch (const StorageUnavailable&) {
          ++unavailable;
        } catch (const std::exception&) {
          ++other_failures;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(other_failures.load(), 0);
  EXPECT_EQ(committed.load() + unavailable.load(), 8 * 20);
  EXPECT_GT(committed.load(), 0);
  EXPECT_EQ(first.documents->FindDocument(id)->version, 1 + committed.load());
}

TEST_F(SqliteDocumentStoreTest, TwoInstancesOnOneFileNeverClaimTheSameEventUntilReleased) {
  SqliteConfig config = Config();
  config.outbox_claim_ttl = milliseconds(60'000);
  Stores first = OpenSqliteStores(config);
  Stores second = OpenSqliteStores(config);
  for (int i = 0; i < 4; ++i) AddDocument(*first.documents);
  const auto claimed = first.outbox->ClaimPending(3);
  ASSERT_EQ(claimed.size(), 3u);
  const auto rest = second.outbox->ClaimPending(10);
  ASSERT_EQ(rest.size(), 1u);
  for (const auto& event : claimed) EXPECT_NE(event.event_id, rest[0].event_id);
  EXPECT_EQ(first.outbox->ClaimPending(10).size(), 3u) << "an instance gets its own claims back";
  first.outbox->ReleaseClaims();
  EXPECT_EQ(second.outbox->ClaimPending(10).size(), 4u);
}

}  // namespace
}  // namespace docgate

namespace docgate {
namespace {

// A file system of its own, small enough to fill: a tmpfs mounted for the test (needs root, as
// make test runs in CI; elsewhere the test is skipped with the reason).
class SmallFileSystem {
 public:
  explicit SmallFileSystem(const fs::path& at) : at_(at) {
    const std::string command = "mount -t tmpfs -o size=16m tmpfs '" + at.string() + "' 2>&1";
    mounted_ = std::system(command.c_str()) == 0;
  }
  ~SmallFileSystem() {
    if (mounted_) std::system(("umount -l '" + at_.string() + "'").c_str());
  }
  bool mounted() const { return mounted_; }

 private:
  fs::path at_;
  bool mounted_ = false;
};

TEST(SqliteReadinessTest, AFullDiskIsNotReadyAndReadyAgainOnceSpaceIsFreed) {
  TempDir dir;
  SmallFileSystem disk(dir.path());
  if (!disk.mounted())
    GTEST_SKIP() << "cannot mount a tmpfs here (not root?): disk-full readiness untested";
  Stores store = OpenSqliteStores(SqliteConfig{.path = dir.path() / "docgate.db"});
  ASSERT_TRUE(store.documents->Ping());

  // Fill the file system to the last byte.
  const fs::path filler = dir.path() / "filler";
  {
    std::ofstream out(filler, std::ios::binary);
    const std::string block(64 * 1024, 'x');
    while (out.write(block.data(), static_cast<std::streamsize>(block.size()))) {
    }
  }
  EXPECT_LT(fs::space(dir.path()).available, kMinFreeDiskBytes);
  EXPECT_FALSE(store.documents->Ping());
  EXPECT_FALSE(store.previews->Ping());

  fs::remove(filler);
  EXPECT_TRUE(store.documents->Ping());
}

}  // namespace
}  // namespace docgate
