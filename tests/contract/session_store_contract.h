#pragma once

// The contract of SessionStore (app/ports/session_store.h): a session comes back as it was
// created, field for field, until it expires or is deleted; one id_hash is one session. Instantiate
// with a factory of DocumentStoreContract (store_contract_fixture.h); it uses only Make().

#include <gtest/gtest.h>

#include <cstdint>
#include <exception>
#include <iomanip>
#include <latch>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "app/ports/session_store.h"
#include "app/stores.h"
#include "contract/store_contract_fixture.h"
#include "core/error.h"
#include "core/model.h"

namespace docgate {

// Readable failure messages (internal linkage: no clash with printers of other test files).
[[maybe_unused]] static void PrintTo(const SessionRecord& s, std::ostream* os) {
  *os << "SessionRecord{id_hash=" << s.id_hash << " user=" << s.user_id
      << " name=" << s.user_name.value_or("(none)") << " roles=[";
  for (std::size_t i = 0; i < s.roles.size(); ++i) *os << (i > 0 ? "," : "") << s.roles[i];
  *os << "] csrf=" << s.csrf_token << " id_token=" << s.id_token.size() << " bytes"
      << " created_at=" << s.created_at.time_since_epoch().count()
      << " expires_at=" << s.expires_at.time_since_epoch().count() << "}";
}

template <typename Factory>
class SessionStoreContract : public ::testing::Test {
 protected:
  SessionStore& sessions() { return *stores_.sessions; }

  // A lowercase hex SHA-256 as the cookie's id would hash to: `n` in 64 hex digits.
  static std::string IdHash(std::uint64_t n) {
    std::ostringstream hex;
    hex << std::hex << std::setw(64) << std::setfill('0') << n;
    return hex.str();
  }

  // A session of `user` created at ContractTime(0) that expires at ContractTime(expires_at).
  static SessionRecord Session(std::uint64_t n, const UserId& user, std::int64_t expires_at) {
    return SessionRecord{IdHash(n),
                         user,
                         "User " + user,
                         {"author"},
                         "csrf-" + std::to_string(n),
                         "header.payload-" + std::to_string(n) + ".signature",
                         ContractTime(0),
                         ContractTime(expires_at)};
  }

  // Creates `session` and returns it.
  SessionRecord Created(SessionRecord session) {
    sessions().Create(session);
    return session;
  }

  Factory factory_;
  Stores stores_ = factory_.Make();
};

TYPED_TEST_SUITE_P(SessionStoreContract);

TYPED_TEST_P(SessionStoreContract, AnUnknownSessionIsNotFound) {
  const std::string hash = this->IdHash(1);
  EXPECT_EQ(this->sessions().Find(hash, ContractTime()), std::nullopt);
  this->Created(this->Session(1, "alice", 1'000));
  EXPECT_EQ(this->sessions().Find(this->IdHash(2), ContractTime()), std::nullopt);
  EXPECT_EQ(this->sessions().Find(hash.substr(0, 63), ContractTime()), std::nullopt)
      << "a prefix is another hash";
  EXPECT_EQ(this->sessions().Find("", ContractTime()), std::nullopt);
  EXPECT_EQ(this->sessions().Find("alice", ContractTime()), std::nullopt)
      << "found by its hash, not by its user";
  EXPECT_NE(this->sessions().Find(hash, ContractTime()), std::nullopt);
}

TYPED_TEST_P(SessionStoreContract, EveryFieldRoundTrips) {
  std::string id_token;  // a signed JWT of an issuer generous with claims: ~2 KB
  while (id_token.size() < 2'048) id_token += "eyJhbGciOiJSUzI1NiJ9-_";
  id_token += ".sig";
  const std::vector<SessionRecord> made{
      {.id_hash = this->IdHash(1),
       .user_id = "zhang.san",
       .user_name = "\u5f20\u4e09",  // 张三
       .roles = {"author", "reviewer", "admin"},
       .csrf_token = "c1",
       .id_token = id_token,
       .created_at = ContractTime(1),
       .expires_at = ContractTime(86'400'000)},
      {.id_hash = this->IdHash(2),
       .user_id = "svc-7",
       .user_name = std::nullopt,
       .roles = {},
       .csrf_token = "c2",
       .id_token = "",
       .created_at = ContractTime(2),
       .expires_at = ContractTime(3)},
      {.id_hash = this->IdHash(3),
       .user_id = "u-42",
       .user_name = "Ann 'Nan' \"the \\ Reviewer\" O\u2019Neil \xF0\x9F\x9A\x80",  // 🚀
       .roles = {"reviewer"},
       .csrf_token = "a\"b'c\\d",
       .id_token = "tok'en\"with\\quotes",
       .created_at = ContractTime(-5),
       .expires_at = ContractTime(7)},
      {.id_hash = this->IdHash(4),
       .user_id = "o'brien' OR '1'='1",
       .user_name = "",  // a name, empty: not the same as none
       .roles = {"admin", "author"},
       .csrf_token = "",
       .id_token = "x",
       .created_at = ContractTime(4),
       .expires_at = ContractTime(5)},
  };
  for (const SessionRecord& session : made) this->sessions().Create(session);
  for (const SessionRecord& session : made) {
    EXPECT_EQ(this->sessions().Find(session.id_hash, ContractTime(-10)), session)
        << session.user_id;
  }
}

// A session is gone once expires_at <= now: at its expiry time it is already gone, a millisecond
// before it is found. Find does not remove it.
TYPED_TEST_P(SessionStoreContract, ASessionExpiresAtItsExpiryTime) {
  const SessionRecord session = this->Created(this->Session(1, "alice", 1'000));
  EXPECT_EQ(this->sessions().Find(session.id_hash, ContractTime(999)), session);
  EXPECT_EQ(this->sessions().Find(session.id_hash, ContractTime(1'000)), std::nullopt);
  EXPECT_EQ(this->sessions().Find(session.id_hash, ContractTime(1'001)), std::nullopt);
  EXPECT_EQ(this->sessions().Find(session.id_hash, ContractTime(999)), session)
      << "an expired Find deletes nothing";
}

TYPED_TEST_P(SessionStoreContract, DeleteEndsOneSessionOnce) {
  const SessionRecord alice = this->Created(this->Session(1, "alice", 1'000));
  const SessionRecord bob = this->Created(this->Session(2, "bob", 1'000));
  EXPECT_TRUE(this->sessions().Delete(alice.id_hash));
  EXPECT_EQ(this->sessions().Find(alice.id_hash, ContractTime()), std::nullopt);
  EXPECT_FALSE(this->sessions().Delete(alice.id_hash)) << "already ended";
  EXPECT_FALSE(this->sessions().Delete(this->IdHash(3))) << "never was";
  EXPECT_EQ(this->sessions().Find(bob.id_hash, ContractTime()), bob);
}

TYPED_TEST_P(SessionStoreContract, DeleteExpiredRemovesOnlyTheExpired) {
  EXPECT_EQ(this->sessions().DeleteExpired(ContractTime(1'000)), 0u) << "none at all";
  for (const std::int64_t expires_at : {-5'000, 999, 1'000}) {
    this->Created(
        this->Session(static_cast<std::uint64_t>(expires_at + 10'000), "gone", expires_at));
  }
  const SessionRecord live = this->Created(this->Session(1, "alice", 1'001));
  const SessionRecord later = this->Created(this->Session(2, "bob", 90'000));
  EXPECT_EQ(this->sessions().DeleteExpired(ContractTime(1'000)), 3u);
  for (const std::int64_t expires_at : {-5'000, 999, 1'000}) {
    EXPECT_EQ(this->sessions().Find(this->IdHash(static_cast<std::uint64_t>(expires_at + 10'000)),
                                    ContractTime(-10'000)),
              std::nullopt)
        << "removed, not only out of date: expired at " << expires_at;
  }
  EXPECT_EQ(this->sessions().Find(live.id_hash, ContractTime(1'000)), live);
  EXPECT_EQ(this->sessions().Find(later.id_hash, ContractTime(1'000)), later);
  EXPECT_EQ(this->sessions().DeleteExpired(ContractTime(1'000)), 0u) << "nothing left to remove";
  EXPECT_EQ(this->sessions().DeleteExpired(ContractTime(1'001)), 1u);
  EXPECT_EQ(this->sessions().Find(later.id_hash, ContractTime(1'001)), later);
}

TYPED_TEST_P(SessionStoreContract, ASecondCreateOfOneIdHashThrowsAndKeepsTheFirst) {
  const SessionRecord first = this->Created(this->Session(1, "alice", 1'000));
  SessionRecord second = this->Session(1, "mallory", 5'000);
  second.roles = {"admin"};
  EXPECT_THROW(this->sessions().Create(second), StorageError);
  EXPECT_THROW(this->sessions().Create(first), StorageError) << "not even the same session again";
  EXPECT_EQ(this->sessions().Find(first.id_hash, ContractTime()), first);
  EXPECT_EQ(this->sessions().Find(first.id_hash, ContractTime(1'000)), std::nullopt)
      << "the first's expiry, not the second's";
}

// Roles are kept as one space-separated column: a role it could not give back as it was is
// refused, and nothing is stored.
TYPED_TEST_P(SessionStoreContract, ARoleThatIsEmptyOrHoldsASpaceIsRefused) {
  SessionRecord spaced = this->Session(1, "alice", 1'000);
  spaced.roles = {"author", "review er"};
  EXPECT_THROW(this->sessions().Create(spaced), StorageError);
  SessionRecord empty = this->Session(2, "bob", 1'000);
  empty.roles = {"author", ""};
  EXPECT_THROW(this->sessions().Create(empty), StorageError);
  EXPECT_EQ(this->sessions().Find(spaced.id_hash, ContractTime()), std::nullopt);
  EXPECT_EQ(this->sessions().Find(empty.id_hash, ContractTime()), std::nullopt);
}

// Sign-ins on several instances at once: each session is stored, none lost or mixed up.
TYPED_TEST_P(SessionStoreContract, ConcurrentCreatesAreAllFound) {
  constexpr int kThreads = 8;
  constexpr int kEach = 5;
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      for (int i = 0; i < kEach; ++i) {
        const auto n = static_cast<std::uint64_t>(t * kEach + i + 1);
        try {
          this->sessions().Create(this->Session(n, "user-" + std::to_string(t), 1'000));
        } catch (const std::exception& e) {
          ADD_FAILURE() << "thread " << t << ", session " << n << ": " << e.what();
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kEach; ++i) {
      const auto n = static_cast<std::uint64_t>(t * kEach + i + 1);
      EXPECT_EQ(this->sessions().Find(this->IdHash(n), ContractTime()),
                this->Session(n, "user-" + std::to_string(t), 1'000))
          << "session " << n;
    }
  }
  EXPECT_EQ(this->sessions().DeleteExpired(ContractTime(1'000)),
            static_cast<std::size_t>(kThreads * kEach));
}

REGISTER_TYPED_TEST_SUITE_P(SessionStoreContract, AnUnknownSessionIsNotFound, EveryFieldRoundTrips,
                            ASessionExpiresAtItsExpiryTime, DeleteEndsOneSessionOnce,
                            DeleteExpiredRemovesOnlyTheExpired,
                            ASecondCreateOfOneIdHashThrowsAndKeepsTheFirst,
                            ARoleThatIsEmptyOrHoldsASpaceIsRefused, ConcurrentCreatesAreAllFound);

}  // namespace docgate
