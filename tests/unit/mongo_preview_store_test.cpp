// The MongoDB preview store's parts that need no server: the URI check, password redaction,
// construction, and the calls against a port where nothing listens.

#include "adapters/mongo/mongo_preview_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <string>

#include "adapters/mongo/mongo_uri.h"
#include "core/error.h"
#include "support/tcp_proxy.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kPassword[] = "Sup3r-Secret";

TEST(MongoUri, AcceptsConnectionStrings) {
  for (const char* uri : {"mongodb://localhost", "mongodb://localhost:27017/docgate",
                          "mongodb://alice:Sup3r-Secret@db1:27017,db2:27018/previews"
                          "?replicaSet=rs0&authSource=admin&w=majority",
                          "mongodb+srv://cluster0.example.com/docgate"}) {
    EXPECT_EQ(ValidateMongoUri(uri), std::nullopt) << uri;
  }
}

TEST(MongoUri, RejectsOtherSchemes) {
  for (const char* uri :
       {"http://localhost", "postgresql://localhost/docgate", "localhost:27017"}) {
    EXPECT_EQ(ValidateMongoUri(uri),
              "invalid MongoDB URI: Invalid URI Schema, expecting 'mongodb://' or 'mongodb+srv://'")
        << uri;
  }
}

TEST(MongoUri, RejectsGarbage) {
  EXPECT_EQ(ValidateMongoUri(""), "the MongoDB URI is empty");
  EXPECT_EQ(ValidateMongoUri("mongodb://"), "invalid MongoDB URI: Invalid host string in URI");
  EXPECT_EQ(ValidateMongoUri("mongodb://host:99999"),
            "invalid MongoDB URI: Invalid host string in URI");
  EXPECT_EQ(ValidateMongoUri("mongodb://host/bad.name"),
            "invalid MongoDB URI: Invalid database name in URI");
  EXPECT_EQ(ValidateMongoUri("mongodb://host/?connectTimeoutMS=soon"),
            "invalid MongoDB URI: Unsupported value for \"connecttimeoutms\": \"soon\"");
}

TEST(MongoUri, RejectsUnacknowledgedWrites) {
  EXPECT_EQ(ValidateMongoUri("mongodb://localhost/?w=0"),
            "the MongoDB URI asks for unacknowledged writes (w=0); the preview store needs them "
            "acknowledged");
}

TEST(MongoUri, NeverEchoesThePassword) {
  for (const std::string uri :
       {"mongodb://alice:Sup3r-Secret@host:99999/docgate", "mongodb://alice:Sup3r-Secret@/docgate",
        "mongodb://alice:Sup3r-Secret@host/bad.name", "postgresql://alice:Sup3r-Secret@host/db",
        "mongodb://alice:Sup3r-Secret@host/?tls=Sup3r-Secret",
        "mongodb://alice:Sup3r-Secret@host/?connectTimeoutMS=Sup3r-Secret"}) {
    const auto problem = ValidateMongoUri(uri);
    ASSERT_TRUE(problem.has_value()) << uri;
    EXPECT_THAT(*problem, Not(HasSubstr(kPassword))) << uri;
  }
}

TEST(MongoUri, WithoutPasswordRedactsItAsWrittenAndDecoded) {
  EXPECT_EQ(WithoutPassword("login alice:Sup3r-Secret failed", "mongodb://alice:Sup3r-Secret@h"),
            "login alice:*** failed");
  EXPECT_EQ(WithoutPassword("p%40ss/w0rd or p@ss/w0rd", "mongodb://alice:p%40ss%2Fw0rd@h/db"),
            "p%40ss/w0rd or ***");
  EXPECT_EQ(WithoutPassword("raw p%40ss%2Fw0rd", "mongodb://alice:p%40ss%2Fw0rd@h/db"), "raw ***");
  EXPECT_EQ(WithoutPassword("no secret here", "mongodb://alice@h/db"), "no secret here");
  EXPECT_EQ(WithoutPassword("no secret here", "mongodb://h:27017/db"), "no secret here");
}

MongoConfig ConfigFor(std::string uri) {
  return MongoConfig{.uri = std::move(uri), .connect_timeout = 300ms, .operation_timeout = 300ms};
}

TEST(MongoPreviewStore, RefusesAnInvalidConfig) {
  try {
    MongoPreviewStore store(ConfigFor("mongodb://alice:Sup3r-Secret@host:99999/docgate"));
    ADD_FAILURE() << "an invalid URI was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "invalid MongoDB URI: Invalid host string in URI");
  }
  MongoConfig no_connect_timeout = ConfigFor("mongodb://localhost");
  no_connect_timeout.connect_timeout = 0ms;
  EXPECT_THROW(MongoPreviewStore{no_connect_timeout}, std::invalid_argument);
  MongoConfig negative_operation_timeout = ConfigFor("mongodb://localhost");
  negative_operation_timeout.operation_timeout = -1ms;
  EXPECT_THROW(MongoPreviewStore{negative_operation_timeout}, std::invalid_argument);
}

TEST(MongoPreviewStore, KeepsPreviewsInTheUrisDatabaseElseDocgate) {
  EXPECT_EQ(MongoPreviewStore(ConfigFor("mongodb://localhost")).database(), "docgate");
  EXPECT_EQ(MongoPreviewStore(ConfigFor("mongodb://localhost/?appname=x")).database(), "docgate");
  EXPECT_EQ(MongoPreviewStore(ConfigFor("mongodb://localhost/previews")).database(), "previews");
}

// Nothing listens on the port: every call fails within the timeouts (300 ms here; the bound is
// loose on purpose, it tells "bounded by the config" from "waits for the OS's TCP timeout").
class MongoPreviewStoreWithoutServer : public ::testing::Test {
 protected:
  static constexpr auto kBound = 5s;

  MongoPreviewStore store_{
      ConfigFor("mongodb://alice:Sup3r-Secret@127.0.0.1:" + std::to_string(ClosedPort()) + "/db")};
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();

  void ExpectWithinBound() const { EXPECT_LT(std::chrono::steady_clock::now() - start_, kBound); }
};

TEST_F(MongoPreviewStoreWithoutServer, PingIsFalse) {
  EXPECT_FALSE(store_.Ping());
  ExpectWithinBound();
}

TEST_F(MongoPreviewStoreWithoutServer, FindThrowsStorageUnavailableWithoutThePassword) {
  try {
    store_.Find(1);
    ADD_FAILURE() << "Find answered without a server";
  } catch (const StorageUnavailable& e) {
    EXPECT_THAT(e.what(), HasSubstr("mongodb: find: "));
    EXPECT_THAT(e.what(), Not(HasSubstr(kPassword)));
  }
  ExpectWithinBound();
}

TEST_F(MongoPreviewStoreWithoutServer, ProjectThrowsStorageUnavailable) {
  const PreviewRecord record{.document_id = 1, .version = 1, .content = "c", .approved_at = {}};
  EXPECT_THROW(store_.Project(record), StorageUnavailable);
  ExpectWithinBound();
}

}  // namespace
}  // namespace docgate
