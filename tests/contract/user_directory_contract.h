#pragma once

// The contract of UserDirectory (app/ports/user_directory.h): the latest sighting of a user wins,
// whatever order sightings arrive in, and a sighting without a name says so. Instantiate with a
// factory of DocumentStoreContract (store_contract_fixture.h); it uses only Make().

#include <gtest/gtest.h>

#include <cstdint>
#include <exception>
#include <latch>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "app/ports/user_directory.h"
#include "app/stores.h"
#include "contract/store_contract_fixture.h"
#include "core/model.h"

namespace docgate {

// Readable failure messages (internal linkage: no clash with printers of other test files).
[[maybe_unused]] static void PrintTo(const UserRecord& u, std::ostream* os) {
  *os << "UserRecord{id=" << u.id << " name=" << u.name.value_or("(none)")
      << " seen_at=" << u.seen_at.time_since_epoch().count() << "}";
}

template <typename Factory>
class UserDirectoryContract : public ::testing::Test {
 protected:
  UserDirectory& users() { return *stores_.users; }

  // Remembers `id` named `name` at ContractTime(at) and returns the record.
  UserRecord See(const UserId& id, std::optional<std::string> name, std::int64_t at) {
    const UserRecord user{id, std::move(name), ContractTime(at)};
    users().Remember(user);
    return user;
  }

  Factory factory_;
  Stores stores_ = factory_.Make();
};

TYPED_TEST_SUITE_P(UserDirectoryContract);

TYPED_TEST_P(UserDirectoryContract, AnUnknownUserIsNotFoundAndHasNoName) {
  EXPECT_EQ(this->users().Find("nobody"), std::nullopt);
  EXPECT_EQ(this->users().NamesOf({"nobody"}), (std::map<UserId, std::string>{}));
  this->See("somebody", "Somebody", 1);
  EXPECT_EQ(this->users().Find("nobody"), std::nullopt);
  EXPECT_EQ(this->users().Find("Somebody"), std::nullopt) << "found by id, not by name";
  EXPECT_EQ(this->users().Find("somebod"), std::nullopt);
}

TYPED_TEST_P(UserDirectoryContract, ARememberedUserRoundTrips) {
  const UserRecord chinese = this->See("zhang.san", "\u5f20\u4e09", 10);  // 张三
  const UserRecord quoted =
      this->See("u-42", "Ann 'Nan' \"the \\ Reviewer\" O\u2019Neil \xF0\x9F\x9A\x80", 11);  // 🚀
  const UserRecord nameless = this->See("svc-7", std::nullopt, 12);
  EXPECT_EQ(this->users().Find("zhang.san"), chinese);
  EXPECT_EQ(this->users().Find("u-42"), quoted);
  EXPECT_EQ(this->users().Find("svc-7"), nameless);
  EXPECT_EQ(this->users().NamesOf({"zhang.san", "u-42", "svc-7"}),
            (std::map<UserId, std::string>{{"zhang.san", "\u5f20\u4e09"}, {"u-42", *quoted.name}}))
      << "seen without a name: not in the map";
}

TYPED_TEST_P(UserDirectoryContract, ALaterSightingReplacesTheNameAnOlderOneDoesNot) {
  this->See("alice", "Alice", 10);
  const UserRecord later = this->See("alice", "Alice Liddell", 20);
  EXPECT_EQ(this->users().Find("alice"), later);
  this->See("alice", "Alice (stale)", 15);
  EXPECT_EQ(this->users().Find("alice"), later) << "an older sighting arriving late";
  const UserRecord same_time = this->See("alice", "Alice L.", 20);
  EXPECT_EQ(this->users().Find("alice"), same_time) << "seen later than 20 it was not";
  EXPECT_EQ(this->users().NamesOf({"alice"}),
            (std::map<UserId, std::string>{{"alice", "Alice L."}}));
}

TYPED_TEST_P(UserDirectoryContract, ALaterSightingWithoutANameClearsTheName) {
  this->See("bob", "\u5f20\u4e09", 10);
  this->See("carol", "Carol", 10);
  const UserRecord nameless = this->See("bob", std::nullopt, 20);
  EXPECT_EQ(this->users().Find("bob"), nameless) << "the token named no one: the record says so";
  EXPECT_EQ(this->users().NamesOf({"bob", "carol"}),
            (std::map<UserId, std::string>{{"carol", "Carol"}}));
  this->See("bob", "Bob (stale)", 15);
  EXPECT_EQ(this->users().Find("bob"), nameless) << "an older name does not come back";
  const UserRecord named = this->See("bob", "Bob", 30);
  EXPECT_EQ(this->users().Find("bob"), named);
  EXPECT_EQ(this->users().NamesOf({"bob"}), (std::map<UserId, std::string>{{"bob", "Bob"}}));
}

TYPED_TEST_P(UserDirectoryContract, NamesOfAnswersEachKnownNameOnce) {
  this->See("alice", "Alice", 1);
  this->See("\u5f20\u4e09", "\u5f20\u4e09 (Zh\u0101ng S\u0101n)", 2);
  this->See("svc", std::nullopt, 3);
  this->See("dave", "Dave", 4);
  EXPECT_EQ(
      this->users().NamesOf({"alice", "ghost", "\u5f20\u4e09", "alice", "svc", "", "\u5f20\u4e09"}),
      (std::map<UserId, std::string>{{"alice", "Alice"},
                                     {"\u5f20\u4e09", "\u5f20\u4e09 (Zh\u0101ng S\u0101n)"}}))
      << "repeats once, unknown and nameless ids left out, others' (dave) not asked";
  EXPECT_EQ(this->users().NamesOf({}), (std::map<UserId, std::string>{}));
  EXPECT_EQ(this->users().NamesOf({"ghost", "ghost"}), (std::map<UserId, std::string>{}));
}

// Ids are what a token's issuer wrote: up to 255 bytes of UTF-8, with characters that quoting,
// arrays and JSON treat specially.
TYPED_TEST_P(UserDirectoryContract, IdsOfAnyTextUpTo255BytesRoundTrip) {
  std::string han;
  for (int i = 0; i < 85; ++i) han += "\u5f20";  // 张, 3 bytes
  std::string mixed = "a";
  for (int i = 0; i < 127; ++i) mixed += "\u00e9";  // é, 2 bytes
  ASSERT_EQ(han.size(), 255u);
  ASSERT_EQ(mixed.size(), 255u);
  const std::vector<UserId> ids{han,
                                mixed,
                                "he said \"hi\", {twice}",
                                "back\\slash\\",
                                "tab\tnew\nline",
                                "NULL",
                                "o'brien' OR '1'='1",
                                "\xF0\x9F\x98\x80@example.org"};  // 😀
  std::map<UserId, std::string> expected;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const std::string name = "user " + std::to_string(i);
    const UserRecord user = this->See(ids[i], name, static_cast<std::int64_t>(i));
    EXPECT_EQ(this->users().Find(ids[i]), user) << ids[i];
    expected.emplace(ids[i], name);
  }
  std::vector<UserId> asked = ids;
  asked.push_back(han.substr(0, 252));  // a prefix is another id
  EXPECT_EQ(this->users().NamesOf(asked), expected);
}

// Sightings of one user racing from several instances: whatever order they commit in, the one
// seen last wins. Each round gives the latest time to another thread.
TYPED_TEST_P(UserDirectoryContract, ConcurrentSightingsKeepTheLatest) {
  constexpr int kThreads = 8;
  constexpr int kRounds = 5;
  for (int round = 0; round < kRounds; ++round) {
    const UserId id = "racer-" + std::to_string(round);
    std::latch start(kThreads);
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i) {
      threads.emplace_back([&, i] {
        const int at = (i * 5 + round * 3) % kThreads;  // a permutation of 0..7 per round
        start.arrive_and_wait();
        try {
          this->users().Remember(
              UserRecord{id, "seen at " + std::to_string(at), ContractTime(100 + at)});
        } catch (const std::exception& e) {
          ADD_FAILURE() << "round " << round << ", sighting at " << at << ": " << e.what();
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    EXPECT_EQ(this->users().Find(id), (UserRecord{id, "seen at " + std::to_string(kThreads - 1),
                                                  ContractTime(100 + kThreads - 1)}))
        << "round " << round;
  }
}

REGISTER_TYPED_TEST_SUITE_P(UserDirectoryContract, AnUnknownUserIsNotFoundAndHasNoName,
                            ARememberedUserRoundTrips,
                            ALaterSightingReplacesTheNameAnOlderOneDoesNot,
                            ALaterSightingWithoutANameClearsTheName,
                            NamesOfAnswersEachKnownNameOnce, IdsOfAnyTextUpTo255BytesRoundTrip,
                            ConcurrentSightingsKeepTheLatest);

}  // namespace docgate
