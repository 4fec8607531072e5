#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "app/ports/outbox_store.h"
#include "fakes/fake_database.h"

namespace docgate {

// OutboxStore on a FakeDatabase, shared with the database's other fakes. Each FakeOutboxStore is
// one relay instance, as a process on the database: its claims carry a token of its own
// (FakeDatabase::NewInstanceToken), so another FakeOutboxStore on the same database (another
// relay's) never gets the rows this one claims until their claim runs out on the database's claim
// clock. Like the databases': each call waits for the writer slot (except an idle ClaimPending);
// only rows this instance still claims are deferred; unknown sequences are ignored by
// MarkDelivered and an event already delivered keeps its first delivery time; PruneDelivered keeps
// the approval of an approved version whose ingestion is not done. Requeue wakes nobody: the
// in-process caller wakes the relay, as with SQLite.
//
// SetUnavailable(true) cuts this instance alone off (every call throws StorageUnavailable), as a
// killed or partitioned process, while the database and its other stores go on. Thread-safe.
class FakeOutboxStore final : public OutboxStore {
 public:
  explicit FakeOutboxStore(std::shared_ptr<FakeDatabase> database);

  void SetUnavailable(bool unavailable) { cut_off_ = unavailable; }

  std::vector<OutboxEvent> ClaimPending(int limit) override;
  void MarkDelivered(const std::vector<std::int64_t>& sequences, TimePoint at) override;
  void Defer(const std::vector<std::int64_t>& sequences, std::chrono::milliseconds delay,
             std::chrono::milliseconds max_delay, std::string_view reason) override;
  void ReleaseClaims() override;
  int RenewClaims() override;
  int PruneDelivered(TimePoint cutoff, int limit) override;
  OutboxBacklog Backlog() override;
  void Requeue(const OutboxEvent& event) override;
  std::vector<OutboxEvent> FindStuckIngestions(TimePoint delivered_before, int limit) override;

 private:
  void ThrowIfCutOff() const;

  std::shared_ptr<FakeDatabase> database_;
  const std::string token_;
  std::atomic<bool> cut_off_{false};
};

// The outbox's part of a transition (StoreTransaction::AppendEvent), on the transaction's copy of
// the tables: StorageError for an event_id the outbox has already.
class FakeOutboxWriter {
 public:
  explicit FakeOutboxWriter(FakeTransaction& tx) : tx_(tx) {}

  void Append(const OutboxEvent& event);

 private:
  FakeTransaction& tx_;
};

}  // namespace docgate
