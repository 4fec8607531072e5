#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "adapters/pg/pg_document_store.h"
#include "contract/document_store_contract.h"
#include "core/error.h"
#include "support/pg_test_database.h"

// libpqxx 6.4 leaks the PGresult of a statement sent on a connection that has just died (it asks
// the dead connection for its encoding before taking ownership of the result). Only the tests
// that kill connections reach that path; keep a sanitizer build's leak check about our code.
extern "C" const char* __lsan_default_suppressions() { return "leak:libpqxx-6.4.so\n"; }

namespace docgate {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;
using ::testing::HasSubstr;
using ::testing::Not;

int ListeningSocket(int port, int backlog) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  const int on = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(fd, backlog) != 0) {
    ::close(fd);
    throw std::runtime_error("cannot listen on 127.0.0.1:" + std::to_string(port));
  }
  return fd;
}

int PortOf(int fd) {
  sockaddr_in address{};
  socklen_t length = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  return ntohs(address.sin_port);
}

// A port on which nothing listens (bound, then released).
int ClosedPort() {
  const int fd = ListeningSocket(0, 1);
  const int port = PortOf(fd);
  ::close(fd);
  return port;
}

int ConnectTo(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool SendAll(int fd, const char* data, ssize_t size) {
  while (size > 0) {
    const ssize_t sent = ::send(fd, data, static_cast<std::size_t>(size), MSG_NOSIGNAL);
    if (sent <= 0) return false;
    data += sent;
    size -= sent;
  }
  return true;
}

// The test server as the store sees it through a network that the test can cut: forwards every
// connection on 127.0.0.1:port() to the server; Stop() closes the port and every forwarded
// connection (an outage), Start() opens the same port again (the server is back).
class TcpProxy {
 public:
  explicit TcpProxy(int upstream_port) : upstream_port_(upstream_port) { Start(); }
  TcpProxy(const TcpProxy&) = delete;
  TcpProxy& operator=(const TcpProxy&) = delete;
  ~TcpProxy() { Stop(); }

  int port() const { return port_; }

  void Start() {
    listener_ = ListeningSocket(port_, 64);
    port_ = PortOf(listener_);
    if (::pipe(wake_) != 0) throw std::runtime_error("pipe failed");
    thread_ = std::thread([this] { Loop(); });
  }

  void Stop() {
    if (!thread_.joinable()) return;
    ::close(wake_[1]);  // the loop sees the pipe's end and closes everything
    thread_.join();
    ::close(wake_[0]);
  }

 private:
  void Loop() {
    std::vector<std::pair<int, int>> links;  // client, upstream
    for (;;) {
      std::vector<pollfd> fds{{wake_[0], POLLIN, 0}, {listener_, POLLIN, 0}};
      for (const auto& [client, upstream] : links) {
        fds.push_back({client, POLLIN, 0});
        fds.push_back({upstream, POLLIN, 0});
      }
      if (::poll(fds.data(), fds.size(), -1) < 0) continue;
      if (fds[0].revents != 0) break;
      // fds covers the links as they were before poll; a link accepted below joins next round.
      std::vector<std::pair<int, int>> alive;
      for (std::size_t i = 0; i < links.size(); ++i) {
        const auto [client, upstream] = links[i];
        const bool open = Pump(client, upstream, fds[2 + 2 * i].revents) &&
                          Pump(upstream, client, fds[3 + 2 * i].revents);
        if (open) {
          alive.emplace_back(client, upstream);
        } else {
          ::close(client);
          ::close(upstream);
        }
      }
      if (fds[1].revents & POLLIN) {
        const int client = ::accept(listener_, nullptr, nullptr);
        const int upstream = client >= 0 ? ConnectTo(upstream_port_) : -1;
        if (upstream >= 0) {
          alive.emplace_back(client, upstream);
        } else if (client >= 0) {
          ::close(client);
        }
      }
      links = std::move(alive);
    }
    for (const auto& [client, upstream] : links) {
      ::close(client);
      ::close(upstream);
    }
    ::close(listener_);
  }

  // Forwards what `from` has to `to`; false once either side is closed.
  static bool Pump(int from, int to, short revents) {
    if (revents == 0) return true;
    char buffer[65536];
    const ssize_t got = ::recv(from, buffer, sizeof buffer, 0);
    return got > 0 && SendAll(to, buffer, got);
  }

  int upstream_port_;
  int port_ = 0;
  int listener_ = -1;
  int wake_[2] = {-1, -1};
  std::thread thread_;
};

int PortOfUrl(const std::string& url) {
  const auto authority = url.find("://") + 3;
  const auto end = url.find_first_of("/?", authority);
  const auto colon = url.rfind(':', end);
  if (colon == std::string::npos || colon < authority) return 5432;
  return std::stoi(url.substr(colon + 1, end - colon - 1));
}

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
  static DocumentId AddDocument(DocumentStore& store) {
    auto tx = store.Begin();
    const DocumentId id = tx->InsertDocument(ContractDocument());
    tx->Commit();
    return id;
  }

  PgTestDatabase db_;
};

TEST_F(PgConnectionPoolTest, KilledIdleConnectionsAreReplacedAndNeverHandedOutAgain) {
  PgDocumentStore store(Config(4));
  const DocumentId id = AddDocument(store);
  {
    // Four connections open and idle in the pool.
    std::vector<std::unique_ptr<StoreTransaction>> held;
    for (int i = 0; i < 4; ++i) held.push_back(store.Begin());
  }
  ASSERT_EQ(ServerConnections(), 4);
  ASSERT_EQ(KillStoreBackends(), 4);
  for (int i = 0; i < 10; ++i) {
    EXPECT_NE(store.FindDocument(id), std::nullopt) << i;
    EXPECT_TRUE(store.Ping()) << i;
    auto tx = store.Begin();
    EXPECT_NE(tx->LockDocument(id), std::nullopt) << i;
    tx->Commit();
  }
  {
    std::vector<std::unique_ptr<StoreTransaction>> held;
    for (int i = 0; i < 4; ++i) {
      held.push_back(store.Begin());
      EXPECT_NE(held.back()->ReadDocument(id), std::nullopt) << i;
    }
  }
  EXPECT_EQ(ServerConnections(), 4) << "pool_size bounds the connections, replacements included";
}

TEST_F(PgConnectionPoolTest, ConnectionKilledInsideATransactionFailsItAndIsReplaced) {
  PgDocumentStore store(Config(2));
  const DocumentId id = AddDocument(store);
  auto tx = store.Begin();
  ASSERT_NE(tx->LockDocument(id), std::nullopt);
  ASSERT_EQ(KillStoreBackends(), 1);
  EXPECT_THROW(tx->ReadDocument(id), StorageUnavailable);
  tx.reset();
  auto next = store.Begin();
  EXPECT_NE(next->LockDocument(id), std::nullopt);
  next->Commit();
  EXPECT_TRUE(store.Ping());
}

TEST_F(PgConnectionPoolTest, ClosedPortGivesStorageUnavailableAtOnceNamingTheServer) {
  const int port = ClosedPort();
  PgConfig config = Config();
  config.url = "postgresql://someone:s3cret-pw@127.0.0.1:" + std::to_string(port) + "/docgate";
  config.connect_timeout = milliseconds(1000);
  const auto started = steady_clock::now();
  try {
    PgDocumentStore store(config);
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
  EXPECT_THROW(PgDocumentStore store(config), StorageUnavailable);
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
  PgDocumentStore store(config);
  const DocumentId id = AddDocument(store);
  auto open = store.Begin();
  ASSERT_NE(open->LockDocument(id), std::nullopt);
  ASSERT_TRUE(store.Ping());

  proxy.Stop();
  EXPECT_THROW(open->Commit(), StorageUnavailable);
  open.reset();
  for (int i = 0; i < 3; ++i) {
    EXPECT_THROW(store.FindDocument(id), StorageUnavailable) << i;
    EXPECT_THROW(store.Begin(), StorageUnavailable) << i;
    EXPECT_THROW(store.ClaimPending(10), StorageUnavailable) << i;
    EXPECT_FALSE(store.Ping()) << i;
  }

  proxy.Start();
  EXPECT_TRUE(store.Ping());
  EXPECT_NE(store.FindDocument(id), std::nullopt);
  auto tx = store.Begin();
  EXPECT_NE(tx->LockDocument(id), std::nullopt);
  tx->Commit();
  EXPECT_NE(AddDocument(store), id);
}

TEST_F(PgConnectionPoolTest, ExhaustedPoolGivesStorageUnavailableAfterTheWait) {
  PgConfig config = Config(1);
  config.pool_wait_timeout = milliseconds(100);
  PgDocumentStore store(config);
  const DocumentId id = AddDocument(store);
  auto held = store.Begin();
  try {
    store.FindDocument(id);
    FAIL() << "a second connection was handed out";
  } catch (const StorageUnavailable& e) {
    EXPECT_THAT(e.what(), HasSubstr("no free connection"));
  }
  EXPECT_FALSE(store.Ping());
  held.reset();
  EXPECT_TRUE(store.Ping());
  EXPECT_NE(store.FindDocument(id), std::nullopt);
}

// Waiters are served in arrival order: 20 threads on 2 connections all get their turns within the
// default wait, and no more connections than pool_size are ever opened.
TEST_F(PgConnectionPoolTest, ManyThreadsShareAFewConnections) {
  PgDocumentStore store(Config(2));
  const DocumentId id = AddDocument(store);
  std::atomic<int> done{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 20; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10; ++i) {
        try {
          auto tx = store.Begin();
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
