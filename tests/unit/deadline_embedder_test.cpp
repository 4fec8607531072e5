#include "app/deadline_embedder.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "fakes/fake_embedder.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;

// A provider that hangs: every call waits in FakeEmbedder's hook until Release. It must outlive
// the DeadlineEmbedder (declared before it), whose threads may still be in the hook.
class HeldProvider {
 public:
  explicit HeldProvider(FakeEmbedder& embedder) : released_(release_.get_future().share()) {
    embedder.DuringCall([this] {
      ++entered_;
      released_.wait();
      ++left_;
    });
  }
  ~HeldProvider() { Release(); }
  void Release() {
    if (!done_.exchange(true)) release_.set_value();
  }
  int entered() const { return entered_; }
  int left() const { return left_; }
  // Waits, bounded, until `calls` calls are held.
  bool WaitUntilHolding(int calls) const {
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (entered_ < calls && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
    return entered_ >= calls;
  }

 private:
  std::promise<void> release_;
  std::shared_future<void> released_;
  std::atomic<int> entered_{0};
  std::atomic<int> left_{0};
  std::atomic<bool> done_{false};
};

TEST(DeadlineEmbedder, AnswersAsTheProviderDoesWithinTheDeadline) {
  FakeEmbedder provider(8, 4);
  DeadlineEmbedder embedder(provider, 30s, 2);
  EXPECT_EQ(embedder.model(), provider.model());
  EXPECT_EQ(embedder.dimensions(), 8);
  EXPECT_EQ(embedder.max_batch(), 4);
  const EmbeddedBatch batch = embedder.Embed({"数据库的行锁", "outbox"});
  ASSERT_EQ(batch.vectors.size(), 2u);
  EXPECT_EQ(batch.vectors[0], provider.VectorOf("数据库的行锁"));
  EXPECT_EQ(provider.embedded().at("outbox"), 1);
}

TEST(DeadlineEmbedder, WhatTheProviderThrowsIsRethrown) {
  FakeEmbedder provider;
  DeadlineEmbedder embedder(provider, 30s, 1);
  provider.SetUnavailable(true);
  EXPECT_THROW(embedder.Embed({"x"}), EmbeddingsUnavailable);
  provider.SetUnavailable(false);
  EXPECT_EQ(embedder.Embed({"x"}).vectors.size(), 1u) << "its slot was given back";
}

TEST(DeadlineEmbedder, AHeldProviderCostsTheCallerTheDeadlineAndThenAnswersAgain) {
  FakeEmbedder provider;
  HeldProvider held(provider);
  DeadlineEmbedder embedder(provider, 20ms, 2);
  EXPECT_THROW(embedder.Embed({"held"}), EmbeddingsUnavailable);
  EXPECT_EQ(held.entered(), 1) << "the call is still with the provider";
  EXPECT_EQ(held.left(), 0);
  held.Release();
  // The late call finishes on its own thread and frees its slot; the next calls are answered.
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  bool answered = false;
  while (!answered && std::chrono::steady_clock::now() < deadline) {
    try {
      answered = embedder.Embed({"again"}).vectors.size() == 1;
    } catch (const EmbeddingsUnavailable&) {
      std::this_thread::yield();
    }
  }
  EXPECT_TRUE(answered);
}

TEST(DeadlineEmbedder, AtMostConcurrencyCallsAreWithTheProviderAndTheRestFailAtOnce) {
  FakeEmbedder provider;
  HeldProvider held(provider);
  DeadlineEmbedder embedder(provider, 20ms, 2);
  std::atomic<int> unavailable{0};
  {
    std::vector<std::jthread> callers;
    for (int i = 0; i < 2; ++i) {
      callers.emplace_back([&] {
        try {
          embedder.Embed({"slow"});
        } catch (const EmbeddingsUnavailable&) {
          ++unavailable;
        }
      });
    }
  }
  ASSERT_TRUE(held.WaitUntilHolding(2));
  EXPECT_EQ(unavailable, 2) << "both waited the deadline, not the provider";
  // Both slots are taken by calls the provider still holds: more callers fail without waiting,
  // and never reach the provider.
  for (int i = 0; i < 5; ++i) EXPECT_THROW(embedder.Embed({"more"}), EmbeddingsUnavailable);
  EXPECT_EQ(held.entered(), 2);
  held.Release();
}

TEST(DeadlineEmbedder, DestroyingItWaitsForTheCallsInProgress) {
  FakeEmbedder provider;
  HeldProvider held(provider);
  auto embedder = std::make_unique<DeadlineEmbedder>(provider, 10ms, 1);
  EXPECT_THROW(embedder->Embed({"slow"}), EmbeddingsUnavailable);
  ASSERT_TRUE(held.WaitUntilHolding(1));
  std::jthread release([&] { held.Release(); });
  embedder.reset();
  EXPECT_EQ(held.left(), 1) << "the destructor returned once the held call had ended";
}

}  // namespace
}  // namespace docgate
