#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "adapters/pg/pg_session.h"
#include "adapters/pg/pg_stores.h"
#include "contract/store_contract_fixture.h"
#include "core/error.h"
#include "support/pg_test_database.h"
#include "support/tcp_proxy.h"

namespace docgate {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;
using ::testing::HasSubstr;
using ::testing::Not;

class PgConnectionPoolTest : public ::testing::Test {
 protected:
  PgConfig Config(int pool_size = 4) const {
    PgConfig config = db_.Config();
    config.pool_size = pool_size;
    return config;
  }
  // How many connections of `store`s exist on the server right now.
  std::int64_t ServerConnections() const {
    return db_.Count(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
        " AND application_name = 'docgate'");
  }
  // Terminates every backend of the stores on this database and waits until they are gone.
  std::int64_t KillStoreBackends() const {
    return db_.Count(
        "SELECT count(*) FROM (SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity"
        " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        " AND application_name = 'docgate') AS killed");
  }
  // A store of one connection that reaches the server through `proxy`, that connection open and
  // idle in the pool: the next call runs on it as a reused connection.
  std::unique_ptr<Stores> StoreThrough(const TcpProxy& proxy) const {
    PgConfig config = Config(1);
    config.url = WithHostPort(db_.url(), "127.0.0.1:" + std::to_string(proxy.port()));
    auto store = std::make_unique<Stores>(OpenPgStores(config));
    EXPECT_TRUE(store->documents->Ping());
    return store;
  }
  std::int64_t InboxRows(const std::string& event_id) const {
    return db_.Count("SELECT count(*) FROM kh_consumer_inbox WHERE event_id = '" + event_id + "'");
  }
  std::int64_t Attempts(const std::string& event_id) const {
    return db_.Count("SELECT attempts FROM kh_consumer_inbox WHERE event_id = '" + event_id + "'");
  }
  static DocumentId AddDocument(DocumentStore& store) {
    auto tx = store.Begin();
    const DocumentId id = tx->InsertDocument(ContractDocument());
    tx->Commit();
    return id;
  }

  PgTestDatabase db_;
};

TEST_F(PgConnectionPoolTest, KilledIdleConnectionsAreReplacedAndNeverHandedOutAgain) {
  Stores store = OpenPgStores(Config(4));
  const DocumentId id = AddDocument(*store.documents);
  {
    // Four connections open and idle in the pool.
    std::vector<std::unique_ptr<StoreTransaction>> held;
    for (int i = 0; i < 4; ++i) held.push_back(store.documents->Begin());
  }
  ASSERT_EQ(ServerConnections(), 4);
  ASSERT_EQ(KillStoreBackends(), 4);
  for (int i = 0; i < 10; ++i) {
    EXPECT_NE(store.documents->FindDocument(id), std::nullopt) << i;
    EXPECT_TRUE(store.documents->Ping()) << i;
    auto tx = store.documents->Begin();
    EXPECT_NE(tx->LockDocument(id), std::nullopt) << i;
    tx->Commit();
  }
  {
    std::vector<std::unique_ptr<StoreTransaction>> held;
    for (int i = 0; i < 4; ++i) {
      held.push_back(store.documents->Begin());
      EXPECT_NE(held.back()->ReadDocument(id), std::nullopt) << i;
    }
  }
  EXPECT_EQ(ServerConnections(), 4) << "pool_size bounds the connections, replacements included";
}

TEST_F(PgConnectionPoolTest, ConnectionKilledInsideATransactionFailsItAndIsReplaced) {
  Stores store = OpenPgStores(Config(2));
  const DocumentId id = AddDocument(*store.documents);
  auto tx = store.documents->Begin();
  ASSERT_NE(tx->LockDocument(id), std::nullopt);
  ASSERT_EQ(KillStoreBackends(), 1);
  EXPECT_THROW(tx->ReadDocument(id), StorageUnavailable);
  tx.reset();
  auto next = store.documents->Begin();
  EXPECT_NE(next->LockDocument(id), std::nullopt);
  next->Commit();
  EXPECT_TRUE(store.documents->Ping());
}

TEST_F(PgConnectionPoolTest, ClosedPortGivesStorageUnavailableAtOnceNamingTheServer) {
  const int port = ClosedPort();
  PgConfig config = Config();
  config.url = "postgresql://someone:s3cret-pw@127.0.0.1:" + std::to_string(port) + "/docgate";
  config.connect_timeout = milliseconds(1000);
  const auto started = steady_clock::now();
  try {
    Stores store = OpenPgStores(config);
    FAIL() << "connected to a closed port";
  } catch (const StorageUnavailable& e) {
    EXPECT_THAT(e.what(), HasSubstr("127.0.0.1:" + std::to_string(port) + "/docgate"));
    EXPECT_THAT(e.what(), Not(HasSubstr("s3cret-pw")));
  }
  EXPECT_LT(steady_clock::now() - started, milliseconds(10'000)) << "no hang beyond the timeout";
}

// A server that accepts TCP connections but never speaks: only connect_timeout ends the wait.
TEST_F(PgConnectionPoolTest, SilentServerGivesStorageUnavailableAfterTheConnectTimeout) {
  const int silent = ListeningSocket(0, 16);
  PgConfig config = Config();
  config.url = WithHostPort(config.url, "127.0.0.1:" + std::to_string(PortOf(silent)));
  config.connect_timeout = milliseconds(1000);
  const auto started = steady_clock::now();
  EXPECT_THROW(OpenPgStores(config), StorageUnavailable);
  const auto waited = steady_clock::now() - started;
  ::close(silent);
  EXPECT_GE(waited, milliseconds(900));
  EXPECT_LT(waited, milliseconds(10'000)) << "no hang beyond the timeout";
}

TEST_F(PgConnectionPoolTest, OutageGivesStorageUnavailableAndPingFalseThenRecoversByItself) {
  TcpProxy proxy(PortOfUrl(db_.url()));
  PgConfig config = Config(4);
  config.url = WithHostPort(db_.url(), "127.0.0.1:" + std::to_string(proxy.port()));
  config.connect_timeout = milliseconds(1000);
  Stores store = OpenPgStores(config);
  const DocumentId id = AddDocument(*store.documents);
  auto open = store.documents->Begin();
  ASSERT_NE(open->LockDocument(id), std::nullopt);
  ASSERT_TRUE(store.documents->Ping());

  proxy.Stop();
  EXPECT_THROW(open->Commit(), StorageUnavailable);
  open.reset();
  for (int i = 0; i < 3; ++i) {
    EXPECT_THROW(store.documents->FindDocument(id), StorageUnavailable) << i;
    EXPECT_THROW(store.documents->Begin(), StorageUnavailable) << i;
    EXPECT_THROW(store.outbox->ClaimPending(10), StorageUnavailable) << i;
    EXPECT_FALSE(store.documents->Ping()) << i;
  }

  proxy.Start();
  EXPECT_TRUE(store.documents->Ping());
  EXPECT_NE(store.documents->FindDocument(id), std::nullopt);
  auto tx = store.documents->Begin();
  EXPECT_NE(tx->LockDocument(id), std::nullopt);
  tx->Commit();
  EXPECT_NE(AddDocument(*store.documents), id);
}

TEST_F(PgConnectionPoolTest, ExhaustedPoolGivesStorageUnavailableAfterTheWait) {
  PgConfig config = Config(1);
  config.pool_wait_timeout = milliseconds(100);
  Stores store = OpenPgStores(config);
  const DocumentId id = AddDocument(*store.documents);
  auto held = store.documents->Begin();
  try {
    store.documents->FindDocument(id);
    FAIL() << "a second connection was handed out";
  } catch (const StorageUnavailable& e) {
    EXPECT_THAT(e.what(), HasSubstr("no free connection"));
  }
  EXPECT_FALSE(store.documents->Ping());
  held.reset();
  EXPECT_TRUE(store.documents->Ping());
  EXPECT_NE(store.documents->FindDocument(id), std::nullopt);
}

// The proxy drops the server's answer to the statement that carries the event_id (a bound
// parameter): the server ran it to its end while the client sees the connection lost. Run in
// autocommit, the failure was committed right there, and running it again on a fresh connection
// counted it twice; in its own transaction it was not committed, so it runs again and counts once.
TEST_F(PgConnectionPoolTest, AFailureWhoseAnswerIsLostBeforeItsCommitIsCountedOnce) {
  TcpProxy proxy(PortOfUrl(db_.url()));
  const auto store = StoreThrough(proxy);
  proxy.DropAnswerTo("lost-answer");
  const ConsumerFailure failure =
      store->inbox->RecordFailure("preview", ContractEvent("lost-answer"), "boom", 5, ContractTime(10));
  EXPECT_TRUE(proxy.answer_dropped());
  EXPECT_EQ(failure.attempts, 1);
  EXPECT_FALSE(failure.parked);
  EXPECT_EQ(Attempts("lost-answer"), 1);
}

// The answer to COMMIT is lost: the failure was counted, but the store cannot know it, and it must
// not count it again; the caller's next failure is the next attempt.
TEST_F(PgConnectionPoolTest, AFailureWhoseCommitIsInDoubtIsNotRunAgain) {
  TcpProxy proxy(PortOfUrl(db_.url()));
  const auto store = StoreThrough(proxy);
  proxy.DropAnswerTo("COMMIT");
  try {
    store->inbox->RecordFailure("preview", ContractEvent("in-doubt"), "boom", 5, ContractTime(10));
    ADD_FAILURE() << "the lost commit was not reported";
  } catch (const StorageUnavailable& e) {
    EXPECT_THAT(e.what(), HasSubstr("outcome unknown"));
  }
  EXPECT_TRUE(proxy.answer_dropped());
  EXPECT_EQ(Attempts("in-doubt"), 1);
  EXPECT_EQ(store->inbox->RecordFailure("preview", ContractEvent("in-doubt"), "boom", 5, ContractTime(20))
                .attempts,
            2);
}

// Unpark deletes what it returns: run again after a lost autocommit answer, it found nothing and
// the events were neither parked nor handed back to be delivered again.
TEST_F(PgConnectionPoolTest, AnUnparkWhoseAnswerIsLostBeforeItsCommitStillReturnsTheEvent) {
  TcpProxy proxy(PortOfUrl(db_.url()));
  const auto store = StoreThrough(proxy);
  ASSERT_TRUE(
      store->inbox->RecordFailure("preview", ContractEvent("parked-1"), "boom", 1, ContractTime(10))
          .parked);
  proxy.DropAnswerTo("parked-1");
  const std::vector<OutboxEvent> unparked = store->inbox->Unpark(std::string("parked-1"));
  EXPECT_TRUE(proxy.answer_dropped());
  ASSERT_EQ(unparked.size(), 1u);
  EXPECT_EQ(unparked[0].event_id, "parked-1");
  EXPECT_EQ(InboxRows("parked-1"), 0);
}

// Reads are still run again on a fresh connection when a reused one breaks.
TEST_F(PgConnectionPoolTest, AReadWhoseAnswerIsLostIsRunAgain) {
  TcpProxy proxy(PortOfUrl(db_.url()));
  const auto store = StoreThrough(proxy);
  proxy.DropAnswerTo("'unfind'");  // the query's term (its stem) as the tsquery sent holds it
  EXPECT_TRUE(
      store->chunks->Search(ParseSearchQuery("unfindable"), 10, SearchGrouping::kChunk).empty());
  EXPECT_TRUE(proxy.answer_dropped());
}

// Waiters are served in arrival order: 20 threads on 2 connections all get their turns within the
// default wait, and no more connections than pool_size are ever opened.
TEST_F(PgConnectionPoolTest, ManyThreadsShareAFewConnections) {
  Stores store = OpenPgStores(Config(2));
  const DocumentId id = AddDocument(*store.documents);
  std::atomic<int> done{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 20; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10; ++i) {
        try {
          auto tx = store.documents->Begin();
          tx->LockDocument(id);
          tx->Commit();
          ++done;
        } catch (const std::exception& e) {
          ADD_FAILURE() << e.what();
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(done.load(), 200);
  EXPECT_LE(ServerConnections(), 2);
}

}  // namespace
}  // namespace docgate
