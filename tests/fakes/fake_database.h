#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "app/ports/clock.h"
#include "core/model.h"
#include "fakes/fake_tables.h"

namespace docgate {

// The in-memory database the per-port fakes share (FakeDocumentStore, FakeOutboxStore,
// FakeIdempotencyStore, FakeInboxStore, FakePreviewStore, FakeChunkIndex; OpenFakeStores builds
// them on one), faithful to SQLite (the contract suites run against both). A write transaction
// (FakeTransaction: StoreTransaction, ConsumerTransaction, PreviewStore::Project) takes the one
// writer slot for its lifetime (BEGIN IMMEDIATE), waiting at most `lock_timeout` before
// StorageUnavailable, and works on a copy of the tables that Commit swaps in, so a rolled-back
// transaction leaves nothing behind; so claims of the inbox serialise as on SQLite. Every other
// write (Write) waits for the same slot, so a running transaction's commit cannot swap it away.
// Reads (Read) see the last commit. The rules the database enforces are the stores' to enforce
// with StorageError (fake_tables.h).
//
// Outbox claims are the databases': a claim lasts `claim_ttl` on `claim_clock` (the databases use
// their own clocks; a test moves this one by hand). Each FakeOutboxStore is one relay instance
// with claims of its own (instance_token). Retry times stay on the system clock.
//
// Faults are injected here, for every store at once: FailNextBegin/FailNextCommit throw
// StorageUnavailable once (from the next FakeTransaction's start or Commit, whichever store's it
// is); SetUnavailable(true) makes every call of every store throw it (Ping answers false) until
// SetUnavailable(false).
//
// Thread-safe. Each store holds it (shared), so it lives as long as any of them.
class FakeDatabase {
 public:
  // Claims on the system clock, for 3 s.
  explicit FakeDatabase(std::chrono::milliseconds lock_timeout = std::chrono::seconds(5));
  // `claim_clock` must outlive the database.
  FakeDatabase(Clock& claim_clock, std::chrono::milliseconds claim_ttl);
  FakeDatabase(const FakeDatabase&) = delete;
  FakeDatabase& operator=(const FakeDatabase&) = delete;
  ~FakeDatabase();

  void FailNextBegin();
  void FailNextCommit();
  void SetUnavailable(bool unavailable);
  // False while set unavailable; never throws.
  bool Ping();

  // Idempotency records stored, live or expired (for tests).
  std::size_t IdempotencyKeyCount();
  // Inbox rows stored, in any state (for tests).
  std::size_t InboxRowCount();
  // Every event ever appended and not pruned, delivered or not, in sequence order (for tests).
  std::vector<OutboxEvent> AllEvents();

  // A new relay instance's claimed_by: "fake-instance-0", then -1, -2, ...
  std::string NewInstanceToken();
  // Now on the claim clock, and how long a claim lasts on it.
  TimePoint ClaimNow() { return claim_clock_.Now(); }
  std::chrono::milliseconds claim_ttl() const { return claim_ttl_; }

  // Runs fn(tables) on the last commit; StorageUnavailable while set unavailable.
  template <typename Fn>
  auto Read(Fn&& fn) {
    std::lock_guard lock(mutex_);
    ThrowIfUnavailable();
    return fn(static_cast<const FakeTables&>(tables_));
  }

  // Runs fn(tables) as a write of its own, in place, once the writer slot is free (at most
  // lock_timeout); StorageUnavailable while set unavailable or when the wait times out.
  template <typename Fn>
  auto Write(Fn&& fn) {
    std::unique_lock lock(mutex_);
    ThrowIfUnavailable();
    AwaitWriterSlot(lock);
    return fn(tables_);
  }
  // Write, except that when idle(tables) holds it returns a value-initialised result at once,
  // without waiting for the writer slot (as SQLite's reads do before a write begins).
  template <typename Idle, typename Fn>
  auto WriteUnlessIdle(Idle&& idle, Fn&& fn) {
    std::unique_lock lock(mutex_);
    ThrowIfUnavailable();
    if (idle(static_cast<const FakeTables&>(tables_))) return decltype(fn(tables_)){};
    AwaitWriterSlot(lock);
    return fn(tables_);
  }

 private:
  friend class FakeTransaction;

  // Require mutex_ held through `lock`.
  void ThrowIfUnavailable() const;
  void AwaitWriterSlot(std::unique_lock<std::mutex>& lock);
  // FakeTransaction's: throws an injected failure, or takes the writer slot and returns the copy
  // of the tables the transaction works on.
  FakeTables StartWrite();
  // Throws an injected failure or swaps `tables` in.
  void Commit(FakeTables& tables);
  // Ends the writer's turn (commit or rollback).
  void EndWrite();

  const std::chrono::milliseconds lock_timeout_;
  std::unique_ptr<Clock> system_clock_;  // the claim clock unless one was given
  Clock& claim_clock_;
  const std::chrono::milliseconds claim_ttl_;
  std::mutex mutex_;
  std::condition_variable writer_done_;
  int instances_ = 0;  // guarded by mutex_
  bool writer_active_ = false;
  bool fail_next_begin_ = false;
  bool fail_next_commit_ = false;
  bool unavailable_ = false;
  FakeTables tables_;
};

// One write transaction on a FakeDatabase: the writer slot from construction to Commit or
// destruction (as SQLite gives its write lock back at COMMIT), and the copy of the tables that
// Commit swaps in. The per-port writers (FakeDocumentWriter, FakeOutboxWriter, ...) work on it.
// Construction throws like FakeDatabase::Write, or an injected Begin failure. Not thread-safe; the
// database must outlive it.
class FakeTransaction {
 public:
  explicit FakeTransaction(FakeDatabase& database)
      : database_(database), tables_(database.StartWrite()) {}
  FakeTransaction(const FakeTransaction&) = delete;
  FakeTransaction& operator=(const FakeTransaction&) = delete;
  ~FakeTransaction() {
    if (!committed_) database_.EndWrite();
  }

  // The transaction's copy of the tables. StorageError after Commit; StorageUnavailable while the
  // database is set unavailable.
  FakeTables& Open();
  // Swaps the copy in (or throws an injected failure, keeping nothing) and ends the transaction.
  void Commit();

 private:
  FakeDatabase& database_;
  FakeTables tables_;
  bool committed_ = false;
};

}  // namespace docgate
