#include "fakes/fake_document_store.h"

#include <algorithm>
#include <set>
#include <utility>

#include "core/error.h"

namespace docgate {
namespace {

// What the database's constraints throw in the real store.
[[noreturn]] void Violation(const std::string& what) { throw StorageError("fake store: " + what); }

template <typename Map>
std::optional<typename Map::mapped_type> Lookup(const Map& map, const typename Map::key_type& key) {
  const auto found = map.find(key);
  if (found == map.end()) return std::nullopt;
  return found->second;
}

}  // namespace

class FakeDocumentStore::Transaction final : public StoreTransaction {
 public:
  Transaction(FakeDocumentStore& store, Data data) : store_(store), data_(std::move(data)) {}
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction() override { store_.EndWrite(); }

  std::optional<Review> LockReview(ReviewId id) override { return Lookup(Open().reviews, id); }
  std::optional<Document> LockDocument(DocumentId id) override {
    return Lookup(Open().documents, id);
  }
  std::optional<Document> ReadDocument(DocumentId id) override {
    return Lookup(Open().documents, id);
  }
  std::optional<std::string> ReadContent(DocumentId id, std::int32_t version) override {
    return Lookup(Open().contents, {id, version});
  }

  DocumentId InsertDocument(const Document& doc) override {
    Data& data = Open();
    Document row = doc;
    row.id = ++data.last_document_id;
    data.documents.emplace(row.id, row);
    return row.id;
  }

  ReviewId InsertReview(const Review& review) override {
    Data& data = Open();
    if (!data.documents.contains(review.document_id)) {
      Violation("FOREIGN KEY constraint failed: review of missing document " +
                std::to_string(review.document_id));
    }
    Review row = review;
    row.id = data.last_review_id + 1;
    CheckOnePending(data, row);
    data.last_review_id = row.id;
    data.reviews.emplace(row.id, row);
    return row.id;
  }

  void UpdateDocument(const Document& doc) override {
    Document& row = Existing(Open().documents, doc.id, "document");
    const UserId author_id = row.author_id;
    const TimePoint created_at = row.created_at;
    row = doc;
    row.author_id = author_id;
    row.created_at = created_at;
  }

  void UpdateReview(const Review& review) override {
    Data& data = Open();
    Review& row = Existing(data.reviews, review.id, "review");
    Review updated = row;
    updated.status = review.status;
    updated.decided_by = review.decided_by;
    updated.decided_at = review.decided_at;
    updated.comment = review.comment;
    CheckOnePending(data, updated);
    row = std::move(updated);
  }

  void PutContent(DocumentId id, std::int32_t version, const std::string& content,
                  TimePoint /*at*/) override {
    Data& data = Open();
    if (!data.documents.contains(id)) {
      Violation("FOREIGN KEY constraint failed: content of missing document " + std::to_string(id));
    }
    if (!data.contents.emplace(std::pair{id, version}, content).second) {
      Violation("UNIQUE constraint failed: content of document " + std::to_string(id) +
                " version " + std::to_string(version));
    }
  }

  void AppendEvent(const OutboxEvent& event) override {
    Data& data = Open();
    for (const auto& [sequence, row] : data.outbox) {
      if (row.event.event_id == event.event_id) {
        Violation("UNIQUE constraint failed: event_id " + event.event_id);
      }
    }
    Data::OutboxRow row;
    row.event = event;
    row.event.sequence = ++data.last_sequence;
    data.outbox.emplace(row.event.sequence, std::move(row));
  }

  void CompleteIdempotentRequest(const std::string& caller, const std::string& key,
                                 const std::string& owner, const std::string& response,
                                 TimePoint expires_at) override {
    if (!CompleteIn(Open(), caller, key, owner, response, expires_at)) {
      Violation("idempotency key '" + key + "' of " + caller +
                " is no longer reserved by this request");
    }
  }

  void Commit() override {
    store_.Commit(Open());
    committed_ = true;
  }

 private:
  Data& Open() {
    if (committed_) Violation("the transaction is already committed");
    std::lock_guard lock(store_.mutex_);
    store_.ThrowIfUnavailable();
    return data_;
  }

  template <typename Row>
  static Row& Existing(std::map<std::int64_t, Row>& rows, std::int64_t id, const char* what) {
    const auto found = rows.find(id);
    if (found == rows.end())
      Violation(std::string("no ") + what + " " + std::to_string(id) + " to update");
    return found->second;
  }

  // The partial unique index: at most one pending review per document.
  static void CheckOnePending(const Data& data, const Review& review) {
    if (review.status != ReviewStatus::kPending) return;
    const bool other_pending =
        std::any_of(data.reviews.begin(), data.reviews.end(), [&](const auto& entry) {
          const Review& other = entry.second;
          return other.id != review.id && other.document_id == review.document_id &&
                 other.status == ReviewStatus::kPending;
        });
    if (other_pending) {
      Violation("UNIQUE constraint failed: a second pending review for document " +
                std::to_string(review.document_id));
    }
  }

  FakeDocumentStore& store_;
  Data data_;
  bool committed_ = false;
};

FakeDocumentStore::FakeDocumentStore(std::chrono::milliseconds lock_timeout)
    : lock_timeout_(lock_timeout) {}

void FakeDocumentStore::FailNextBegin() {
  std::lock_guard lock(mutex_);
  fail_next_begin_ = true;
}

void FakeDocumentStore::FailNextCommit() {
  std::lock_guard lock(mutex_);
  fail_next_commit_ = true;
}

void FakeDocumentStore::SetUnavailable(bool unavailable) {
  std::lock_guard lock(mutex_);
  unavailable_ = unavailable;
}

void FakeDocumentStore::ThrowIfUnavailable() const {
  if (unavailable_) throw StorageUnavailable("fake store: set unavailable");
}

void FakeDocumentStore::AwaitWriterSlot(std::unique_lock<std::mutex>& lock) {
  if (!writer_done_.wait_for(lock, lock_timeout_, [&] { return !writer_active_; })) {
    throw StorageUnavailable("fake store: another transaction held the write lock for over " +
                             std::to_string(lock_timeout_.count()) + " ms");
  }
}

std::unique_ptr<StoreTransaction> FakeDocumentStore::Begin() {
  std::unique_lock lock(mutex_);
  ThrowIfUnavailable();
  if (std::exchange(fail_next_begin_, false)) {
    throw StorageUnavailable("fake store: injected failure of Begin");
  }
  AwaitWriterSlot(lock);
  writer_active_ = true;
  return std::make_unique<Transaction>(*this, data_);
}

void FakeDocumentStore::Commit(Data& data) {
  std::lock_guard lock(mutex_);
  ThrowIfUnavailable();
  if (std::exchange(fail_next_commit_, false)) {
    throw StorageUnavailable("fake store: injected failure of Commit");
  }
  data_ = std::move(data);
}

void FakeDocumentStore::EndWrite() {
  {
    std::lock_guard lock(mutex_);
    writer_active_ = false;
  }
  writer_done_.notify_one();
}

std::optional<Document> FakeDocumentStore::FindDocument(DocumentId id) {
  std::lock_guard lock(mutex_);
  ThrowIfUnavailable();
  return Lookup(data_.documents, id);
}

std::optional<Review> FakeDocumentStore::FindReview(ReviewId id) {
  std::lock_guard lock(mutex_);
  ThrowIfUnavailable();
  return Lookup(data_.reviews, id);
}

std::optional<std::string> FakeDocumentStore::FindContent(DocumentId id, std::int32_t version) {
  std::lock_guard lock(mutex_);
  ThrowIfUnavailable();
  return Lookup(data_.contents, {id, version});
}

std::vector<Document> FakeDocumentStore::ListDocuments(const DocumentQuery& query) {
  std::lock_guard lock(mutex_);
  ThrowIfUnavailable();
  std::vector<Document> page;
  for (auto it = data_.documents.rbegin(); it != data_.documents.rend(); ++it) {
    if (static_cast<int>(page.size()) >= query.limit) break;
    const Document& doc = it->second;
    if (query.before && doc.id >= *query.before) continue;
    if (query.status && doc.status != *query.status) continue;
    if (query.author_id && doc.author_id != *query.author_id) continue;
    page.push_back(doc);
  }
  return page;
}

std::vector<Review> FakeDocumentStore::ListReviews(const ReviewQuery& query) {
  std::lock_guard lock(mutex_);
  ThrowIfUnavailable();
  std::vector<Review> page;
  for (const auto& [id, review] : data_.reviews) {
    if (static_cast<int>(page.size()) >= query.limit) break;
    if (query.after && id <= *query.after) continue;
    if (query.status && review.status != *query.status) continue;
    page.push_back(review);
  }
  return page;
}

std::vector<Review> FakeDocumentStore::ListDocumentReviews(DocumentId id) {
  std::lock_guard lock(mutex_);
  ThrowIfUnavailable();
  std::vector<Review> reviews;
  for (auto it = data_.reviews.rbegin(); it != data_.reviews.rend(); ++it) {
    if (it->second.document_id == id) reviews.push_back(it->second);
  }
  return reviews;
}

bool FakeDocumentStore::Ping() {
  std::lock_guard lock(mutex_);
  return !unavailable_;
}

std::vector<OutboxEvent> FakeDocumentStore::ClaimPending(int limit) {
  std::lock_guard lock(mutex_);
  ThrowIfUnavailable();
  const auto now = std::chrono::system_clock::now();
  std::vector<OutboxEvent> events;
  std::set<DocumentId> behind_a_head;  // documents whose oldest undelivered event was passed
  for (const auto& [sequence, row] : data_.outbox) {
    if (static_cast<int>(events.size()) >= limit) break;
    if (row.delivered_at) continue;
    const bool is_head = behind_a_head.insert(row.event.document_id).second;
    if (is_head && row.next_attempt_at <= now) events.push_back(row.event);
  }
  return events;
}

void FakeDocumentStore::MarkDelivered(const std::vector<std::int64_t>& sequences, TimePoint at) {
  if (sequences.empty()) return;
  std::unique_lock lock(mutex_);
  ThrowIfUnavailable();
  // A write like any other: a running transaction's commit would otherwise swap these marks away.
  AwaitWriterSlot(lock);
  for (const std::int64_t sequence : sequences) {
    const auto found = data_.outbox.find(sequence);
    if (found != data_.outbox.end() && !found->second.delivered_at) found->second.delivered_at = at;
  }
}

void FakeDocumentStore::Defer(const std::vector<std::int64_t>& sequences,
                              std::chrono::milliseconds delay, std::chrono::milliseconds max_delay,
                              std::string_view reason) {
  if (sequences.empty()) return;
  std::unique_lock lock(mutex_);
  ThrowIfUnavailable();
  AwaitWriterSlot(lock);
  const auto now = std::chrono::system_clock::now();
  for (const std::int64_t sequence : sequences) {
    const auto found = data_.outbox.find(sequence);
    if (found == data_.outbox.end() || found->second.delivered_at) continue;
    Data::OutboxRow& row = found->second;
    row.next_attempt_at = now + std::min(max_delay, delay * (std::int64_t{1} << std::min(row.attempts, 30)));
    ++row.attempts;
    row.last_error = reason;
  }
}

int FakeDocumentStore::PruneDelivered(TimePoint cutoff, int limit) {
  std::unique_lock lock(mutex_);
  ThrowIfUnavailable();
  AwaitWriterSlot(lock);
  std::vector<std::pair<TimePoint, std::int64_t>> expired;  // (delivered_at, sequence)
  for (const auto& [sequence, row] : data_.outbox) {
    if (row.delivered_at && *row.delivered_at < cutoff) expired.emplace_back(*row.delivered_at, sequence);
  }
  std::sort(expired.begin(), expired.end());
  const auto count = std::min<std::size_t>(expired.size(), static_cast<std::size_t>(std::max(limit, 0)));
  for (std::size_t i = 0; i < count; ++i) data_.outbox.erase(expired[i].second);
  return static_cast<int>(count);
}

OutboxBacklog FakeDocumentStore::Backlog() {
  std::lock_guard lock(mutex_);
  ThrowIfUnavailable();
  OutboxBacklog backlog;
  for (const auto& [sequence, row] : data_.outbox) {
    if (row.delivered_at) continue;
    ++backlog.pending;
    if (!backlog.oldest_occurred_at || row.event.occurred_at < *backlog.oldest_occurred_at) {
      backlog.oldest_occurred_at = row.event.occurred_at;
    }
  }
  return backlog;
}

bool FakeDocumentStore::CompleteIn(Data& data, const std::string& caller, const std::string& key,
                                   const std::string& owner, const std::string& response,
                                   TimePoint expires_at) {
  const auto found = data.idempotency.find({caller, key});
  if (found == data.idempotency.end() || found->second.owner != owner ||
      found->second.record.response) {
    return false;
  }
  found->second.record.response = response;
  found->second.record.expires_at = expires_at;
  return true;
}

std::optional<IdempotencyRecord> FakeDocumentStore::ReserveIdempotencyKey(
    const std::string& caller, const std::string& key, const std::string& fingerprint,
    const std::string& owner, TimePoint now, TimePoint lease_until) {
  std::unique_lock lock(mutex_);
  ThrowIfUnavailable();
  AwaitWriterSlot(lock);
  auto& rows = data_.idempotency;
  const auto found = rows.find({caller, key});
  if (found != rows.end() && found->second.record.expires_at > now) return found->second.record;
  rows[{caller, key}] = Data::IdempotencyRow{{fingerprint, std::nullopt, lease_until}, owner};
  return std::nullopt;
}

bool FakeDocumentStore::CompleteIdempotentRequest(const std::string& caller, const std::string& key,
                                                  const std::string& owner,
                                                  const std::string& response,
                                                  TimePoint expires_at) {
  std::unique_lock lock(mutex_);
  ThrowIfUnavailable();
  AwaitWriterSlot(lock);
  return CompleteIn(data_, caller, key, owner, response, expires_at);
}

void FakeDocumentStore::ReleaseIdempotencyKey(const std::string& caller, const std::string& key,
                                              const std::string& owner) {
  std::unique_lock lock(mutex_);
  ThrowIfUnavailable();
  AwaitWriterSlot(lock);
  const auto found = data_.idempotency.find({caller, key});
  if (found != data_.idempotency.end() && found->second.owner == owner &&
      !found->second.record.response) {
    data_.idempotency.erase(found);
  }
}

int FakeDocumentStore::PruneIdempotencyKeys(TimePoint now, int limit) {
  std::unique_lock lock(mutex_);
  ThrowIfUnavailable();
  AwaitWriterSlot(lock);
  int pruned = 0;
  for (auto it = data_.idempotency.begin(); it != data_.idempotency.end() && pruned < limit;) {
    if (it->second.record.expires_at <= now) {
      it = data_.idempotency.erase(it);
      ++pruned;
    } else {
      ++it;
    }
  }
  return pruned;
}

std::size_t FakeDocumentStore::IdempotencyKeyCount() {
  std::lock_guard lock(mutex_);
  return data_.idempotency.size();
}

std::vector<OutboxEvent> FakeDocumentStore::AllEvents() {
  std::lock_guard lock(mutex_);
  std::vector<OutboxEvent> events;
  for (const auto& [sequence, row] : data_.outbox) events.push_back(row.event);
  return events;
}

}  // namespace docgate
