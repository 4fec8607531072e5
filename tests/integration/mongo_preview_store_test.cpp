// The MongoDB preview store against a real server: DOCGATE_TEST_MONGODB_URI (e.g.
// mongodb://127.0.0.1:27017). Debian ships no MongoDB server, so scripts/services.sh starts none
// and without the variable these tests skip. Each test works in a database of its own, dropped
// at the end.

#include "adapters/mongo/mongo_preview_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <mongoc/mongoc.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "adapters/mongo/mongo_driver.h"
#include "core/error.h"
#include "support/tcp_proxy.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;

// `uri` with its database (the path) replaced by `database`, its options kept. Credentials keep
// authenticating where they did: the database of a URI is also its default authSource.
std::string UriWithDatabase(const std::string& uri, const std::string& database) {
  bson_error_t error{};
  mongoc_uri_t* parsed = mongoc_uri_new_with_error(uri.c_str(), &error);
  if (parsed == nullptr) throw std::invalid_argument(error.message);
  const bool has_credentials = mongoc_uri_get_username(parsed) != nullptr;
  std::string lowercase = uri;
  for (char& c : lowercase) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const bool has_auth_source = lowercase.find("authsource=") != std::string::npos;
  const std::string auth_source = mongoc_uri_get_auth_source(parsed);
  mongoc_uri_destroy(parsed);

  const auto hosts = uri.find("://") + 3;
  const auto path = uri.find_first_of("/?", hosts);
  const auto options = path == std::string::npos ? path : uri.find('?', path);
  std::string out = uri.substr(0, path) + "/" + database;
  out += options == std::string::npos ? "?" : uri.substr(options) + "&";
  if (has_credentials && !has_auth_source) out += "authSource=" + auth_source;
  if (out.ends_with('?') || out.ends_with('&')) out.pop_back();
  return out;
}

PreviewRecord Record(DocumentId id, std::int32_t version) {
  return PreviewRecord{.document_id = id,
                       .version = version,
                       .content = "content of version " + std::to_string(version) + " ✓",
                       .approved_at = TimePoint(std::chrono::milliseconds(1'700'000'000'000) +
                                                std::chrono::minutes(version))};
}

class MongoPreviewStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* uri = std::getenv("DOCGATE_TEST_MONGODB_URI");
    if (uri == nullptr || *uri == '\0') {
      GTEST_SKIP() << "DOCGATE_TEST_MONGODB_URI is not set: no MongoDB server to test against "
                      "(Debian ships none; point it at one, e.g. mongodb://127.0.0.1:27017)";
    }
    const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    database_ = ("dg_" + std::to_string(::getpid()) + "_" + name).substr(0, 63);
    config_ = MongoConfig{
        .uri = UriWithDatabase(uri, database_), .connect_timeout = 5s, .operation_timeout = 5s};
    store_ = std::make_unique<MongoPreviewStore>(config_);
    ASSERT_EQ(store_->database(), database_);
  }

  void TearDown() override {
    if (!store_) return;
    store_.reset();
    WithRawClient([&](mongoc_client_t* client) {
      mongoc_database_t* database = mongoc_client_get_database(client, database_.c_str());
      bson_error_t error{};
      EXPECT_TRUE(mongoc_database_drop(database, &error)) << error.message;
      mongoc_database_destroy(database);
    });
  }

  // A client of its own, behind the store's back, for setting up and inspecting.
  template <typename Use>
  void WithRawClient(Use use) {
    bson_error_t error{};
    mongoc_uri_t* uri = mongoc_uri_new_with_error(config_.uri.c_str(), &error);
    ASSERT_NE(uri, nullptr) << error.message;
    mongoc_client_t* client = mongoc_client_new_from_uri(uri);
    mongoc_uri_destroy(uri);
    ASSERT_NE(client, nullptr);
    use(client);
    mongoc_client_destroy(client);
  }

  MongoDriver driver_;
  std::string database_;
  MongoConfig config_;
  std::unique_ptr<MongoPreviewStore> store_;
};

TEST_F(MongoPreviewStoreTest, ProjectThenFind) {
  EXPECT_EQ(store_->Find(7), std::nullopt);
  EXPECT_TRUE(store_->Project(Record(7, 1)));
  EXPECT_EQ(store_->Find(7), Record(7, 1));
  EXPECT_EQ(store_->Find(8), std::nullopt);
}

TEST_F(MongoPreviewStoreTest, StoredDocumentHasTheAgreedShape) {
  ASSERT_TRUE(store_->Project(Record(7, 3)));
  WithRawClient([&](mongoc_client_t* client) {
    mongoc_collection_t* collection =
        mongoc_client_get_collection(client, database_.c_str(), "kh_document_preview");
    bson_t filter = BSON_INITIALIZER;
    BSON_APPEND_INT64(&filter, "_id", 7);
    mongoc_cursor_t* cursor =
        mongoc_collection_find_with_opts(collection, &filter, nullptr, nullptr);
    const bson_t* document = nullptr;
    ASSERT_TRUE(mongoc_cursor_next(cursor, &document));
    bson_iter_t field;
    ASSERT_TRUE(bson_iter_init_find(&field, document, "_id"));
    EXPECT_TRUE(BSON_ITER_HOLDS_INT64(&field));
    ASSERT_TRUE(bson_iter_init_find(&field, document, "version"));
    EXPECT_TRUE(BSON_ITER_HOLDS_INT32(&field));
    EXPECT_EQ(bson_iter_int32(&field), 3);
    ASSERT_TRUE(bson_iter_init_find(&field, document, "content"));
    EXPECT_TRUE(BSON_ITER_HOLDS_UTF8(&field));
    ASSERT_TRUE(bson_iter_init_find(&field, document, "approved_at"));
    EXPECT_TRUE(BSON_ITER_HOLDS_DATE_TIME(&field));
    EXPECT_EQ(bson_iter_date_time(&field), Record(7, 3).approved_at.time_since_epoch().count());
    EXPECT_EQ(bson_count_keys(document), 4u);
    mongoc_cursor_destroy(cursor);
    bson_destroy(&filter);
    mongoc_collection_destroy(collection);
  });
}

TEST_F(MongoPreviewStoreTest, OlderVersionNeverReplacesNewer) {
  EXPECT_TRUE(store_->Project(Record(7, 4)));
  EXPECT_FALSE(store_->Project(Record(7, 3)));
  EXPECT_EQ(store_->Find(7), Record(7, 4));
}

TEST_F(MongoPreviewStoreTest, NewerVersionReplacesOlder) {
  EXPECT_TRUE(store_->Project(Record(7, 3)));
  EXPECT_TRUE(store_->Project(Record(7, 4)));
  EXPECT_EQ(store_->Find(7), Record(7, 4));
}

TEST_F(MongoPreviewStoreTest, SameVersionTwiceWritesOnce) {
  EXPECT_TRUE(store_->Project(Record(7, 2)));
  PreviewRecord repeat = Record(7, 2);
  repeat.content = "a redelivery must not overwrite";
  EXPECT_FALSE(store_->Project(repeat));
  EXPECT_EQ(store_->Find(7), Record(7, 2));
}

TEST_F(MongoPreviewStoreTest, DocumentsAreIndependent) {
  EXPECT_TRUE(store_->Project(Record(1, 5)));
  EXPECT_TRUE(store_->Project(Record(2, 1)));
  EXPECT_EQ(store_->Find(1), Record(1, 5));
  EXPECT_EQ(store_->Find(2), Record(2, 1));
}

// Twenty projections of one new document race, each creating it if it is missing: whatever the
// order, version 20 is what stays, and its projection reports that it wrote.
TEST_F(MongoPreviewStoreTest, ConcurrentProjectionsKeepTheNewest) {
  constexpr int kThreads = 20;
  std::atomic<int> ready{0};
  std::vector<int> wrote(kThreads + 1, -1);
  std::vector<std::thread> threads;
  for (int version = 1; version <= kThreads; ++version) {
    threads.emplace_back([&, version] {
      ++ready;
      while (ready.load() < kThreads)
        std::this_thread::yield();
      wrote[version] = store_->Project(Record(42, version)) ? 1 : 0;
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(store_->Find(42), Record(42, kThreads));
  EXPECT_EQ(wrote[kThreads], 1);
  for (int version = 1; version <= kThreads; ++version) EXPECT_NE(wrote[version], -1) << version;
}

TEST_F(MongoPreviewStoreTest, PingAnswers) { EXPECT_TRUE(store_->Ping()); }

TEST_F(MongoPreviewStoreTest, UnreachableServerIsStorageUnavailableWithinTheTimeout) {
  MongoConfig config = config_;
  config.uri = "mongodb://127.0.0.1:" + std::to_string(ClosedPort()) + "/" + database_;
  config.connect_timeout = 200ms;
  config.operation_timeout = 200ms;
  MongoPreviewStore unreachable(config);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(unreachable.Project(Record(7, 1)), StorageUnavailable);
  EXPECT_THROW(unreachable.Find(7), StorageUnavailable);
  EXPECT_FALSE(unreachable.Ping());
  // Three calls of about 200 ms each; far below the OS's own TCP timeouts.
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

}  // namespace
}  // namespace docgate
