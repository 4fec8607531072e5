#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <latch>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "adapters/pg/pg_session.h"
#include "adapters/pg/pg_stores.h"
#include "adapters/pg/pg_outbox_listener.h"
#include "contract/store_contract_fixture.h"
#include "fakes/counting_wakeup.h"
#include "support/pg_test_database.h"
#include "support/tcp_proxy.h"

namespace docgate {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

class PgOutboxTest : public ::testing::Test {
 protected:
  PgConfig Config(milliseconds claim_ttl) const {
    PgConfig config = db_.Config();
    config.outbox_claim_ttl = claim_ttl;
    return config;
  }
  void AppendEvents(DocumentStore& store, int count) {
    auto tx = store.Begin();
    // One document per event: each is its document's head, so every one is claimable.
    for (int i = 0; i < count; ++i, ++next_) {
      tx->AppendEvent(ContractEvent("e-" + std::to_string(next_), next_));
    }
    tx->Commit();
  }
  static std::vector<std::int64_t> Sequences(const std::vector<OutboxEvent>& events) {
    std::vector<std::int64_t> sequences;
    for (const OutboxEvent& event : events) sequences.push_back(event.sequence);
    return sequences;
  }
  // Polls `store` until it hands out something (another instance's claim has run out).
  static std::vector<OutboxEvent> PendingWithin(Stores& store, milliseconds limit) {
    const auto deadline = steady_clock::now() + limit;
    for (;;) {
      auto events = store.outbox->ClaimPending(10);
      if (!events.empty() || steady_clock::now() > deadline) return events;
      std::this_thread::sleep_for(milliseconds(20));
    }
  }

  PgTestDatabase db_;
  int next_ = 1;
};

TEST_F(PgOutboxTest, ClaimedRowsAreNotHandedToAnotherInstance) {
  Stores first = OpenPgStores(Config(milliseconds(60'000)));
  Stores second = OpenPgStores(Config(milliseconds(60'000)));
  AppendEvents(*first.documents, 5);
  const auto claimed = first.outbox->ClaimPending(3);
  ASSERT_EQ(claimed.size(), 3u);
  const auto rest = second.outbox->ClaimPending(10);
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_GT(rest.front().sequence, claimed.back().sequence);
  EXPECT_TRUE(second.outbox->ClaimPending(10).size() == 2u) << "an instance sees its own claims again";
  EXPECT_EQ(Sequences(first.outbox->ClaimPending(10)), Sequences(claimed))
      << "and only its own: the other instance's rows stay with it";
}

TEST_F(PgOutboxTest, ReleasedClaimsAreHandedToAnotherInstanceAtOnce) {
  Stores stopping = OpenPgStores(Config(milliseconds(60'000)));
  Stores restarted = OpenPgStores(Config(milliseconds(60'000)));
  AppendEvents(*stopping.documents, 4);
  const auto claimed = stopping.outbox->ClaimPending(3);
  ASSERT_EQ(claimed.size(), 3u);
  stopping.outbox->MarkDelivered({claimed.front().sequence}, ContractTime(1));
  stopping.outbox->ReleaseClaims();
  const auto taken = restarted.outbox->ClaimPending(10);
  ASSERT_EQ(taken.size(), 3u) << "the released claims and the unclaimed row, not the delivered one";
  EXPECT_EQ(taken.front().sequence, claimed[1].sequence);
}

TEST_F(PgOutboxTest, ConcurrentInstancesNeverGetTheSameRow) {
  Stores first = OpenPgStores(Config(milliseconds(60'000)));
  Stores second = OpenPgStores(Config(milliseconds(60'000)));
  constexpr int kEvents = 300;
  AppendEvents(*first.documents, kEvents);
  std::vector<std::int64_t> got[2];
  std::latch start(2);
  std::vector<std::thread> threads;
  Stores* stores[2] = {&first, &second};
  for (int s = 0; s < 2; ++s) {
    threads.emplace_back([&, s] {
      start.arrive_and_wait();
      // As the relay does: claim a batch, deliver it, mark it, until nothing is left.
      for (;;) {
        const auto batch = stores[s]->outbox->ClaimPending(7);
        if (batch.empty()) return;
        const auto sequences = Sequences(batch);
        EXPECT_TRUE(std::is_sorted(sequences.begin(), sequences.end()));
        got[s].insert(got[s].end(), sequences.begin(), sequences.end());
        stores[s]->outbox->MarkDelivered(sequences, ContractTime(1));
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::set<std::int64_t> all(got[0].begin(), got[0].end());
  for (std::int64_t sequence : got[1]) {
    EXPECT_TRUE(all.insert(sequence).second) << "row " << sequence << " was handed out twice";
  }
  EXPECT_EQ(got[0].size() + got[1].size(), static_cast<std::size_t>(kEvents));
  EXPECT_EQ(all.size(), static_cast<std::size_t>(kEvents));
  EXPECT_EQ(db_.Count("SELECT count(*) FROM kh_outbox WHERE delivered_at IS NULL"), 0);
}

// A crashed instance: its claims run out and another instance takes the rows over.
TEST_F(PgOutboxTest, ExpiredClaimIsTakenOverByAnotherInstance) {
  auto crashed = std::make_unique<Stores>(OpenPgStores(Config(milliseconds(200))));
  Stores survivor = OpenPgStores(Config(milliseconds(60'000)));
  AppendEvents(*survivor.documents, 2);
  const auto claimed = crashed->outbox->ClaimPending(10);
  ASSERT_EQ(claimed.size(), 2u);
  crashed.reset();
  const auto taken_over = PendingWithin(survivor, milliseconds(10'000));
  EXPECT_EQ(Sequences(taken_over), Sequences(claimed));
  EXPECT_EQ(db_.Count("SELECT count(*) FROM kh_outbox WHERE claimed_until - "
                      "(extract(epoch FROM clock_timestamp()) * 1000)::bigint > 50000"),
            2)
      << "the survivor's claim lasts its own TTL";
}

TEST_F(PgOutboxTest, DeliveredRowsAreNeverClaimedAgain) {
  Stores first = OpenPgStores(Config(milliseconds(60'000)));
  Stores second = OpenPgStores(Config(milliseconds(60'000)));
  AppendEvents(*first.documents, 3);
  const auto claimed = first.outbox->ClaimPending(10);
  first.outbox->MarkDelivered(Sequences(claimed), ContractTime(5));
  EXPECT_TRUE(first.outbox->ClaimPending(10).empty());
  db_.Execute("UPDATE kh_outbox SET claimed_until = 0");  // every claim long expired
  EXPECT_TRUE(second.outbox->ClaimPending(10).empty());
  EXPECT_EQ(db_.Count("SELECT count(*) FROM kh_outbox WHERE delivered_at = " +
                      std::to_string(ContractTime(5).time_since_epoch().count())),
            3);
}

// Waits up to `limit` for `done`, polling every 10 ms.
template <typename Predicate>
bool Within(milliseconds limit, Predicate done) {
  const auto deadline = steady_clock::now() + limit;
  while (!done()) {
    if (steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return true;
}

TEST_F(PgOutboxTest, AnotherInstancesCommitWakesTheListenerOncePerTransaction) {
  Stores writer = OpenPgStores(Config(milliseconds(60'000)));
  CountingWakeup wakeup;
  PgOutboxListener listener(Config(milliseconds(60'000)), wakeup);
  ASSERT_TRUE(Within(milliseconds(5000), [&] { return listener.listening(); }));
  ASSERT_TRUE(Within(milliseconds(2000), [&] { return wakeup.count() >= 1; }))
      << "a listener wakes the relay once when it starts listening";
  const int before = wakeup.count();
  AppendEvents(*writer.documents, 3);  // one transaction, three events: one notification
  ASSERT_TRUE(Within(milliseconds(2000), [&] { return wakeup.count() > before; }));
  std::this_thread::sleep_for(milliseconds(200));
  EXPECT_EQ(wakeup.count(), before + 1);
  {
    auto tx = writer.documents->Begin();  // a transaction without events sends nothing
    tx->Commit();
  }
  std::this_thread::sleep_for(milliseconds(200));
  EXPECT_EQ(wakeup.count(), before + 1);
}

// Requeue is an INSERT ... ON CONFLICT DO UPDATE: the outbox's statement-level INSERT trigger
// notifies whether the row was still there (update) or had been pruned (insert).
TEST_F(PgOutboxTest, RequeueWakesTheListenerWhetherTheRowExistedOrWasPruned) {
  Stores writer = OpenPgStores(Config(milliseconds(60'000)));
  CountingWakeup wakeup;
  PgOutboxListener listener(Config(milliseconds(60'000)), wakeup);
  ASSERT_TRUE(Within(milliseconds(5000), [&] { return listener.listening(); }));
  AppendEvents(*writer.documents, 2);
  const auto delivered = writer.outbox->ClaimPending(10);
  ASSERT_EQ(delivered.size(), 2u);
  writer.outbox->MarkDelivered(Sequences(delivered), ContractTime(1));
  db_.Execute("DELETE FROM kh_outbox WHERE id = " + std::to_string(delivered[1].sequence));
  ASSERT_TRUE(Within(milliseconds(2000), [&] { return wakeup.count() >= 2; }));
  std::this_thread::sleep_for(milliseconds(200));

  int before = wakeup.count();
  writer.outbox->Requeue(delivered[0]);  // the row still exists: reset
  EXPECT_TRUE(Within(milliseconds(2000), [&] { return wakeup.count() > before; }));
  before = wakeup.count();
  writer.outbox->Requeue(delivered[1]);  // the row was pruned: written again
  EXPECT_TRUE(Within(milliseconds(2000), [&] { return wakeup.count() > before; }));
  EXPECT_EQ(db_.Count("SELECT count(*) FROM kh_outbox WHERE delivered_at IS NULL"), 2);
}

TEST_F(PgOutboxTest, TheListenerReconnectsAfterAnOutageAndWakesTheRelayAgain) {
  TcpProxy proxy(PortOfUrl(db_.url()));
  PgConfig through_proxy = Config(milliseconds(60'000));
  through_proxy.url = WithHostPort(db_.url(), "127.0.0.1:" + std::to_string(proxy.port()));
  through_proxy.connect_timeout = milliseconds(1000);
  Stores writer = OpenPgStores(Config(milliseconds(60'000)));  // not through the proxy
  CountingWakeup wakeup;
  PgOutboxListener listener(through_proxy, wakeup);
  ASSERT_TRUE(Within(milliseconds(5000), [&] { return listener.listening(); }));

  proxy.Stop();
  ASSERT_TRUE(Within(milliseconds(5000), [&] { return !listener.listening(); }));
  proxy.Start();
  ASSERT_TRUE(Within(milliseconds(15'000), [&] { return listener.listening(); }));
  const int before = wakeup.count();
  AppendEvents(*writer.documents, 1);
  EXPECT_TRUE(Within(milliseconds(2000), [&] { return wakeup.count() > before; }));
}

}  // namespace
}  // namespace docgate
