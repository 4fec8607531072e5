#include "fakes/fake_database.h"

#include <utility>

#include "app/system_clock.h"

namespace docgate {

FakeDatabase::FakeDatabase(std::chrono::milliseconds lock_timeout)
    : lock_timeout_(lock_timeout),
      system_clock_(std::make_unique<SystemClock>()),
      claim_clock_(*system_clock_),
      claim_ttl_(std::chrono::seconds(3)) {}

FakeDatabase::FakeDatabase(Clock& claim_clock, std::chrono::milliseconds claim_ttl)
    : lock_timeout_(std::chrono::seconds(5)), claim_clock_(claim_clock), claim_ttl_(claim_ttl) {}

FakeDatabase::~FakeDatabase() = default;

void FakeDatabase::FailNextBegin() {
  std::lock_guard lock(mutex_);
  fail_next_begin_ = true;
}

void FakeDatabase::FailNextCommit() {
  std::lock_guard lock(mutex_);
  fail_next_commit_ = true;
}

void FakeDatabase::SetUnavailable(bool unavailable) {
  std::lock_guard lock(mutex_);
  unavailable_ = unavailable;
}

bool FakeDatabase::Ping() {
  std::lock_guard lock(mutex_);
  return !unavailable_;
}

std::size_t FakeDatabase::IdempotencyKeyCount() {
  std::lock_guard lock(mutex_);
  return tables_.idempotency.size();
}

std::size_t FakeDatabase::InboxRowCount() {
  std::lock_guard lock(mutex_);
  return tables_.inbox.size();
}

std::vector<OutboxEvent> FakeDatabase::AllEvents() {
  std::lock_guard lock(mutex_);
  std::vector<OutboxEvent> events;
  for (const auto& [sequence, row] : tables_.outbox) events.push_back(row.event);
  return events;
}

std::string FakeDatabase::NewInstanceToken() {
  std::lock_guard lock(mutex_);
  return "fake-instance-" + std::to_string(instances_++);
}

void FakeDatabase::ThrowIfUnavailable() const {
  if (unavailable_) throw StorageUnavailable("fake store: set unavailable");
}

void FakeDatabase::AwaitWriterSlot(std::unique_lock<std::mutex>& lock) {
  if (!writer_done_.wait_for(lock, lock_timeout_, [&] { return !writer_active_; })) {
    throw StorageUnavailable("fake store: another transaction held the write lock for over " +
                             std::to_string(lock_timeout_.count()) + " ms");
  }
}

FakeTables FakeDatabase::StartWrite() {
  std::unique_lock lock(mutex_);
  ThrowIfUnavailable();
  if (std::exchange(fail_next_begin_, false)) {
    throw StorageUnavailable("fake store: injected failure of Begin");
  }
  AwaitWriterSlot(lock);
  writer_active_ = true;
  return tables_;
}

void FakeDatabase::Commit(FakeTables& tables) {
  std::lock_guard lock(mutex_);
  ThrowIfUnavailable();
  if (std::exchange(fail_next_commit_, false)) {
    throw StorageUnavailable("fake store: injected failure of Commit");
  }
  tables_ = std::move(tables);
}

void FakeDatabase::EndWrite() {
  {
    std::lock_guard lock(mutex_);
    writer_active_ = false;
  }
  writer_done_.notify_one();
}

FakeTables& FakeTransaction::Open() {
  if (committed_) FakeViolation("the transaction is already committed");
  std::lock_guard lock(database_.mutex_);
  database_.ThrowIfUnavailable();
  return tables_;
}

void FakeTransaction::Commit() {
  database_.Commit(Open());
  committed_ = true;
  database_.EndWrite();
}

}  // namespace docgate
