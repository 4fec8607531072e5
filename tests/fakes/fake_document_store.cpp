#include "fakes/fake_document_store.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <tuple>
#include <utility>

#include "app/inbox_rows.h"
#include "core/error.h"
#include "core/search_text.h"
#include "core/utf8.h"

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

template <typename Row>
Row& Existing(std::map<std::int64_t, Row>& rows, std::int64_t id, const char* what) {
  const auto found = rows.find(id);
  if (found == rows.end()) {
    Violation(std::string("no ") + what + " " + std::to_string(id) + " to update");
  }
  return found->second;
}

// A word of the fake's full-text search: lower-cased (ASCII), where it starts in the text.
struct Word {
  std::string text;
  std::size_t at = 0;
};

// Letters and digits, crudely: ASCII letters and digits, and any other code point except the
// punctuation and symbol blocks U+2000..U+2BFF and everything from U+1F000 on (emoji).
bool IsWordCodePoint(std::string_view sequence) {
  const auto lead = static_cast<unsigned char>(sequence[0]);
  if (sequence.size() == 1) return std::isalnum(lead) != 0;
  if (sequence.size() == 4) return false;
  if (sequence.size() == 3) {
    const char32_t cp =
        ((lead & 0x0Fu) << 12) | ((sequence[1] & 0x3Fu) << 6) | (sequence[2] & 0x3Fu);
    return cp < 0x2000 || cp > 0x2BFF;
  }
  return true;
}

std::vector<Word> Words(std::string_view text) {
  std::vector<Word> words;
  std::optional<Word> word;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = std::max<std::size_t>(Utf8SequenceLength(text, i), 1);
    const std::string_view sequence = text.substr(i, length);
    if (Utf8SequenceLength(text, i) > 0 && IsWordCodePoint(sequence)) {
      if (!word) word = Word{"", i};
      for (const char c : sequence) {
        word->text += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      }
    } else if (word) {
      words.push_back(std::move(*word));
      word.reset();
    }
    i += length;
  }
  if (word) words.push_back(std::move(*word));
  return words;
}

// Crude suffix stripping, enough for "reviews", "reviewed" and "reviewing" to meet "review".
std::string Stem(std::string word) {
  const auto strip = [&](std::string_view suffix, std::size_t min_rest) {
    if (word.size() >= suffix.size() + min_rest && word.ends_with(suffix)) {
      word.resize(word.size() - suffix.size());
      return true;
    }
    return false;
  };
  if (strip("ing", 3) || strip("ed", 3)) return word;
  if (!word.ends_with("ss")) strip("s", 3);
  return word;
}

int CountStem(const std::vector<Word>& words, const std::string& stem) {
  return static_cast<int>(std::count_if(words.begin(), words.end(),
                                        [&](const Word& w) { return Stem(w.text) == stem; }));
}

// The content from a few words before the first word with one of `stems`, at most about 240
// bytes, cut at a space.
std::string Snippet(const std::string& content, const std::vector<Word>& words,
                    const std::set<std::string>& stems) {
  constexpr std::size_t kBefore = 4;
  constexpr std::size_t kMaxBytes = 240;
  std::size_t first = 0;
  while (first < words.size() && !stems.contains(Stem(words[first].text))) ++first;
  const std::size_t begin = words[first < kBefore ? 0 : first - kBefore].at;
  std::string snippet = content.substr(begin, kMaxBytes);
  if (begin + kMaxBytes < content.size()) {
    const auto space = snippet.rfind(' ');
    if (space != std::string::npos && space > 0) snippet.resize(space);
  }
  return snippet;
}

}  // namespace

// What every write transaction has: the writer slot from construction to Commit or destruction
// (as SQLite gives its write lock back at COMMIT), and the copy of the data that Commit swaps in.
class FakeDocumentStore::Write {
 public:
  Write(FakeDocumentStore& store, Data data) : store_(store), data_(std::move(data)) {}
  Write(const Write&) = delete;
  Write& operator=(const Write&) = delete;
  ~Write() {
    if (!committed_) store_.EndWrite();
  }

 protected:
  std::optional<Document> DocumentRow(DocumentId id) { return Lookup(Open().documents, id); }
  std::optional<std::string> ContentRow(DocumentId id, std::int32_t version) {
    return Lookup(Open().contents, {id, version});
  }

  Data& Open() {
    if (committed_) Violation("the transaction is already committed");
    std::lock_guard lock(store_.mutex_);
    store_.ThrowIfUnavailable();
    return data_;
  }

  void CommitWrite() {
    store_.Commit(Open());
    committed_ = true;
    store_.EndWrite();
  }

 private:
  FakeDocumentStore& store_;
  Data data_;
  bool committed_ = false;
};

class FakeDocumentStore::Transaction final : public StoreTransaction, private Write {
 public:
  using Write::Write;

  std::optional<Review> LockReview(ReviewId id) override { return Lookup(Open().reviews, id); }
  std::optional<Document> LockDocument(DocumentId id) override { return DocumentRow(id); }
  std::optional<Document> ReadDocument(DocumentId id) override { return DocumentRow(id); }
  std::optional<std::string> ReadContent(DocumentId id, std::int32_t version) override {
    return ContentRow(id, version);
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

  void PutContent(DocumentId id, std::int32_t version,
                  const std::string &content, const UserId &edited_by,
                  TimePoint /*at*/) override {
    Data& data = Open();
    if (!data.documents.contains(id)) {
      Violation("FOREIGN KEY constraint failed: content of missing document " + std::to_string(id));
    }
    if (!data.contents.emplace(std::pair{id, version}, content).second) {
      Violation("UNIQUE constraint failed: content of document " + std::to_string(id) +
                " version " + std::to_string(version));
    }
    data.editors[{id, version}] = edited_by;
  }

  std::vector<UserId> ListEditors(DocumentId id, std::int32_t after_version,
                                  std::int32_t up_to_version) override {
    std::set<UserId> editors;
    const Data &data = Open();
    for (auto it = data.editors.upper_bound({id, after_version});
         it != data.editors.end() && it->first.first == id &&
         it->first.second <= up_to_version;
         ++it) {
      editors.insert(it->second);
    }
    return {editors.begin(), editors.end()};
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

  void Commit() override { CommitWrite(); }

 private:
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
};

class FakeDocumentStore::ConsumerTx final : public ConsumerTransaction, private Write {
 public:
  using Write::Write;

  InboxState Claim(std::string_view consumer, std::string_view event_id, TimePoint at) override {
    auto& rows = Open().inbox;
    const auto [row, inserted] = rows.try_emplace({std::string(consumer), std::string(event_id)});
    if (!inserted && row->second.state != Data::InboxRowState::kFailing) {
      return row->second.state == Data::InboxRowState::kDone ? InboxState::kDone
                                                             : InboxState::kParked;
    }
    row->second.state = Data::InboxRowState::kDone;
    row->second.updated_at = at;
    return InboxState::kNew;
  }

  std::optional<Document> LockDocument(DocumentId id) override { return DocumentRow(id); }

  std::optional<std::string> ReadContent(DocumentId id, std::int32_t version) override {
    return ContentRow(id, version);
  }

  // PreviewStore::Project's write (not part of ConsumerTransaction).
  bool UpsertPreview(const PreviewRecord& record) {
    Data& data = Open();
    const auto found = data.previews.find(record.document_id);
    if (found != data.previews.end()) {
      if (found->second.version >= record.version) return false;
      found->second = record;
      return true;
    }
    RequireDocument(data, record.document_id, "preview");
    data.previews.emplace(record.document_id, record);
    return true;
  }

  void ReplaceChunks(DocumentId id, std::int32_t version, const std::string& title,
                     const std::vector<std::string>& chunks) override {
    Data& data = Open();
    data.chunks.erase(id);
    if (chunks.empty()) return;
    RequireDocument(data, id, "chunk");
    data.chunks.emplace(id, Data::Chunks{version, title, chunks});
  }

  void SetIngestStatus(DocumentId id, IngestStatus status) override {
    Existing(Open().documents, id, "document").ingest_status = status;
  }

  void Commit() override { CommitWrite(); }

 private:
  static void RequireDocument(const Data& data, DocumentId id, const char* what) {
    if (!data.documents.contains(id)) {
      Violation(std::string("FOREIGN KEY constraint failed: ") + what + " of missing document " +
                std::to_string(id));
    }
  }
};

FakeDocumentStore::FakeDocumentStore(std::chrono::milliseconds lock_timeout)
    : lock_timeout_(lock_timeout),
      system_clock_(std::make_unique<SystemClock>()),
      claim_clock_(*system_clock_),
      claim_ttl_(std::chrono::seconds(3)) {}

FakeDocumentStore::FakeDocumentStore(Clock& claim_clock, std::chrono::milliseconds claim_ttl)
    : lock_timeout_(std::chrono::seconds(5)), claim_clock_(claim_clock), claim_ttl_(claim_ttl) {}

FakeDocumentStore::~FakeDocumentStore() = default;

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

FakeDocumentStore::Data FakeDocumentStore::StartWrite() {
  std::unique_lock lock(mutex_);
  ThrowIfUnavailable();
  if (std::exchange(fail_next_begin_, false)) {
    throw StorageUnavailable("fake store: injected failure of Begin");
  }
  AwaitWriterSlot(lock);
  writer_active_ = true;
  return data_;
}

std::unique_ptr<StoreTransaction> FakeDocumentStore::Begin() {
  return std::make_unique<Transaction>(*this, StartWrite());
}

std::unique_ptr<ConsumerTransaction> FakeDocumentStore::BeginConsumer() {
  return std::make_unique<ConsumerTx>(*this, StartWrite());
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
  return ClaimPendingFor(token_, limit);
}

void FakeDocumentStore::Defer(const std::vector<std::int64_t>& sequences,
                              std::chrono::milliseconds delay, std::chrono::milliseconds max_delay,
                              std::string_view reason) {
  DeferFor(token_, sequences, delay, max_delay, reason);
}

void FakeDocumentStore::ReleaseClaims() { ReleaseClaimsOf(token_); }

int FakeDocumentStore::RenewClaims() { return RenewClaimsOf(token_); }

std::vector<OutboxEvent> FakeDocumentStore::ClaimPendingFor(const std::string& token, int limit) {
  std::unique_lock lock(mutex_);
  ThrowIfUnavailable();
  // As on SQLite, an idle poll does not wait for the writer slot.
  if (std::ranges::all_of(
          data_.outbox, [](const auto& entry) { return entry.second.delivered_at.has_value(); })) {
    return {};
  }
  AwaitWriterSlot(lock);
  const auto now = std::chrono::system_clock::now();
  const TimePoint claim_now = claim_clock_.Now();
  std::vector<OutboxEvent> events;
  std::set<DocumentId> behind_a_head;  // documents whose oldest undelivered event was passed
  for (auto& [sequence, row] : data_.outbox) {
    if (static_cast<int>(events.size()) >= limit) break;
    if (row.delivered_at) continue;
    const bool is_head = behind_a_head.insert(row.event.document_id).second;
    const bool claimable =
        !row.claimed_until || *row.claimed_until < claim_now || row.claimed_by == token;
    if (!is_head || row.next_attempt_at > now || !claimable) continue;
    row.claimed_by = token;
    row.claimed_until = claim_now + claim_ttl_;
    events.push_back(row.event);
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
    if (found == data_.outbox.end() || found->second.delivered_at) continue;
    found->second.delivered_at = at;
    found->second.claimed_by.clear();
    found->second.claimed_until.reset();
  }
}

void FakeDocumentStore::DeferFor(const std::string& token,
                                 const std::vector<std::int64_t>& sequences,
                                 std::chrono::milliseconds delay,
                                 std::chrono::milliseconds max_delay, std::string_view reason) {
  if (sequences.empty()) return;
  std::unique_lock lock(mutex_);
  ThrowIfUnavailable();
  AwaitWriterSlot(lock);
  const auto now = std::chrono::system_clock::now();
  for (const std::int64_t sequence : sequences) {
    const auto found = data_.outbox.find(sequence);
    if (found == data_.outbox.end() || found->second.delivered_at ||
        found->second.claimed_by != token) {
      continue;
    }
    Data::OutboxRow& row = found->second;
    row.next_attempt_at = now + std::min(max_delay, delay * (std::int64_t{1} << std::min(row.attempts, 30)));
    ++row.attempts;
    row.last_error = reason;
    row.claimed_by.clear();
    row.claimed_until.reset();
  }
}

void FakeDocumentStore::ReleaseClaimsOf(const std::string& token) {
  std::unique_lock lock(mutex_);
  ThrowIfUnavailable();
  AwaitWriterSlot(lock);
  for (auto& [sequence, row] : data_.outbox) {
    if (row.delivered_at || row.claimed_by != token) continue;
    row.claimed_by.clear();
    row.claimed_until.reset();
  }
}

int FakeDocumentStore::RenewClaimsOf(const std::string& token) {
  std::unique_lock lock(mutex_);
  ThrowIfUnavailable();
  AwaitWriterSlot(lock);
  const TimePoint until = claim_clock_.Now() + claim_ttl_;
  int renewed = 0;
  for (auto& [sequence, row] : data_.outbox) {
    if (row.delivered_at || row.claimed_by != token) continue;
    row.claimed_until = until;
    ++renewed;
  }
  return renewed;
}

std::unique_ptr<FakeDocumentStore::Instance> FakeDocumentStore::AnotherInstance() {
  std::lock_guard lock(mutex_);
  return std::make_unique<Instance>(*this, "fake-instance-" + std::to_string(++instances_));
}

void FakeDocumentStore::Instance::ThrowIfCutOff() const {
  if (cut_off_) throw StorageUnavailable("fake store instance " + token_ + ": set unavailable");
}

std::vector<OutboxEvent> FakeDocumentStore::Instance::ClaimPending(int limit) {
  ThrowIfCutOff();
  return store_.ClaimPendingFor(token_, limit);
}

void FakeDocumentStore::Instance::MarkDelivered(const std::vector<std::int64_t>& sequences,
                                                TimePoint at) {
  ThrowIfCutOff();
  store_.MarkDelivered(sequences, at);
}

void FakeDocumentStore::Instance::Defer(const std::vector<std::int64_t>& sequences,
                                        std::chrono::milliseconds delay,
                                        std::chrono::milliseconds max_delay,
                                        std::string_view reason) {
  ThrowIfCutOff();
  store_.DeferFor(token_, sequences, delay, max_delay, reason);
}

void FakeDocumentStore::Instance::ReleaseClaims() {
  ThrowIfCutOff();
  store_.ReleaseClaimsOf(token_);
}

int FakeDocumentStore::Instance::RenewClaims() {
  ThrowIfCutOff();
  return store_.RenewClaimsOf(token_);
}

int FakeDocumentStore::Instance::PruneDelivered(TimePoint cutoff, int limit) {
  ThrowIfCutOff();
  return store_.PruneDelivered(cutoff, limit);
}

OutboxBacklog FakeDocumentStore::Instance::Backlog() {
  ThrowIfCutOff();
  return store_.Backlog();
}

void FakeDocumentStore::Instance::Requeue(const OutboxEvent& event) {
  ThrowIfCutOff();
  store_.Requeue(event);
}

std::vector<OutboxEvent> FakeDocumentStore::Instance::FindStuckIngestions(
    TimePoint delivered_before, int limit) {
  ThrowIfCutOff();
  return store_.FindStuckIngestions(delivered_before, limit);
}

int FakeDocumentStore::PruneDelivered(TimePoint cutoff, int limit) {
  std::unique_lock lock(mutex_);
  ThrowIfUnavailable();
  AwaitWriterSlot(lock);
  std::vector<std::pair<TimePoint, std::int64_t>> expired;  // (delivered_at, sequence)
  for (const auto& [sequence, row] : data_.outbox) {
    if (row.delivered_at && *row.delivered_at < cutoff && !AwaitsIngestion(data_, row.event)) {
      expired.emplace_back(*row.delivered_at, sequence);
    }
  }
  std::sort(expired.begin(), expired.end());
  const auto count = std::min<std::size_t>(expired.size(), static_cast<std::size_t>(std::max(limit, 0)));
  for (std::size_t i = 0; i < count; ++i) data_.outbox.erase(expired[i].second);
  return static_cast<int>(count);
}

bool FakeDocumentStore::AwaitsIngestion(const Data& data, const OutboxEvent& event) {
  if (event.type != EventType::kApproved) return false;
  const auto doc = data.documents.find(event.document_id);
  return doc != data.documents.end() && doc->second.approved_version == event.version &&
         doc->second.ingest_status != IngestStatus::kDone;
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

std::size_t FakeDocumentStore::InboxRowCount() {
  std::lock_guard lock(mutex_);
  return data_.inbox.size();
}

std::vector<OutboxEvent> FakeDocumentStore::AllEvents() {
  std::lock_guard lock(mutex_);
  std::vector<OutboxEvent> events;
  for (const auto& [sequence, row] : data_.outbox) events.push_back(row.event);
  return events;
}

ConsumerFailure FakeDocumentStore::RecordFailure(std::string_view consumer,
                                                 const OutboxEvent& event, std::string_view error,
                                                 int max_attempts, TimePoint at) {
  std::unique_lock lock(mutex_);
  ThrowIfUnavailable();
  AwaitWriterSlot(lock);
  const auto [found, inserted] = data_.inbox.try_emplace({std::string(consumer), event.event_id});
  Data::InboxRow& row = found->second;
  if (inserted) row.state = Data::InboxRowState::kFailing;
  if (row.state == Data::InboxRowState::kFailing) {
    ++row.attempts;
    row.last_error = error;
    row.updated_at = at;
    row.event = event;
    row.event->sequence = 0;
    if (row.attempts >= max_attempts) row.state = Data::InboxRowState::kParked;
  }
  return ConsumerFailure{row.attempts, row.state == Data::InboxRowState::kParked};
}

std::vector<ParkedEvent> FakeDocumentStore::ListParked(int limit) {
  std::lock_guard lock(mutex_);
  ThrowIfUnavailable();
  std::vector<ParkedEvent> parked;
  for (const auto& [key, row] : data_.inbox) {
    if (row.state != Data::InboxRowState::kParked) continue;
    parked.push_back(
        ParkedEvent{key.first, *row.event, row.attempts, row.last_error, row.updated_at});
  }
  std::sort(parked.begin(), parked.end(), [](const ParkedEvent& a, const ParkedEvent& b) {
    return std::tie(a.parked_at, a.consumer, a.event.event_id) <
           std::tie(b.parked_at, b.consumer, b.event.event_id);
  });
  parked.resize(std::min(parked.size(), static_cast<std::size_t>(std::max(limit, 0))));
  return parked;
}

std::vector<OutboxEvent> FakeDocumentStore::Unpark(const std::optional<std::string>& event_id) {
  std::unique_lock lock(mutex_);
  ThrowIfUnavailable();
  AwaitWriterSlot(lock);
  std::vector<std::pair<TimePoint, OutboxEvent>> deleted;
  for (auto it = data_.inbox.begin(); it != data_.inbox.end();) {
    const bool match = it->second.state == Data::InboxRowState::kParked &&
                       (!event_id || it->first.second == *event_id);
    if (!match) {
      ++it;
      continue;
    }
    deleted.emplace_back(it->second.updated_at, *it->second.event);
    it = data_.inbox.erase(it);
  }
  return OldestParkedFirstOnce(std::move(deleted));
}

int FakeDocumentStore::PruneInbox(TimePoint cutoff, int limit) {
  std::unique_lock lock(mutex_);
  ThrowIfUnavailable();
  AwaitWriterSlot(lock);
  std::set<std::string> in_outbox;
  for (const auto& [sequence, row] : data_.outbox) in_outbox.insert(row.event.event_id);
  std::vector<std::pair<TimePoint, std::pair<std::string, std::string>>> expired;
  for (const auto& [key, row] : data_.inbox) {
    if (row.state == Data::InboxRowState::kDone && row.updated_at < cutoff &&
        !in_outbox.contains(key.second)) {
      expired.emplace_back(row.updated_at, key);
    }
  }
  std::sort(expired.begin(), expired.end());
  const auto count =
      std::min<std::size_t>(expired.size(), static_cast<std::size_t>(std::max(limit, 0)));
  for (std::size_t i = 0; i < count; ++i) data_.inbox.erase(expired[i].second);
  return static_cast<int>(count);
}

void FakeDocumentStore::Requeue(const OutboxEvent& event) {
  std::unique_lock lock(mutex_);
  ThrowIfUnavailable();
  AwaitWriterSlot(lock);
  for (auto& [sequence, row] : data_.outbox) {
    if (row.event.event_id != event.event_id) continue;
    row.delivered_at.reset();
    row.attempts = 0;
    row.next_attempt_at = {};
    row.last_error.clear();
    row.claimed_by.clear();
    row.claimed_until.reset();
    return;
  }
  Data::OutboxRow row;
  row.event = event;
  row.event.sequence = ++data_.last_sequence;
  data_.outbox.emplace(row.event.sequence, std::move(row));
}

std::vector<OutboxEvent> FakeDocumentStore::FindStuckIngestions(TimePoint delivered_before,
                                                                int limit) {
  std::lock_guard lock(mutex_);
  ThrowIfUnavailable();
  std::vector<std::pair<TimePoint, OutboxEvent>> stuck;  // (delivered_at, event)
  for (const auto& [id, doc] : data_.documents) {
    if (!doc.approved_version ||
        (doc.ingest_status != IngestStatus::kNone && doc.ingest_status != IngestStatus::kPending)) {
      continue;
    }
    const Data::OutboxRow* newest = nullptr;
    for (const auto& [sequence, row] : data_.outbox) {
      if (row.event.type == EventType::kApproved && row.event.document_id == id &&
          row.event.version == *doc.approved_version) {
        newest = &row;
      }
    }
    if (newest != nullptr && newest->delivered_at && *newest->delivered_at < delivered_before) {
      stuck.emplace_back(*newest->delivered_at, newest->event);
    }
  }
  std::sort(stuck.begin(), stuck.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first, a.second.sequence) < std::tie(b.first, b.second.sequence);
  });
  std::vector<OutboxEvent> events;
  for (auto& [delivered_at, event] : stuck) {
    if (static_cast<int>(events.size()) >= limit) break;
    events.push_back(std::move(event));
  }
  return events;
}

bool FakeDocumentStore::Project(const PreviewRecord& record) {
  ConsumerTx tx(*this, StartWrite());
  const bool wrote = tx.UpsertPreview(record);
  tx.Commit();
  return wrote;
}

std::optional<PreviewRecord> FakeDocumentStore::Find(DocumentId id) {
  std::lock_guard lock(mutex_);
  ThrowIfUnavailable();
  return Lookup(data_.previews, id);
}

std::vector<SearchHit> FakeDocumentStore::Search(const std::string& query, int limit) {
  std::set<std::string> stems;
  for (const std::string& word : SearchWords(query)) {
    for (const Word& part : Words(word)) stems.insert(Stem(part.text));
  }
  if (stems.empty() || limit <= 0) return {};
  std::lock_guard lock(mutex_);
  ThrowIfUnavailable();
  std::vector<std::tuple<double, DocumentId, std::size_t, SearchHit>>
      hits;  // (-score, id, ordinal)
  for (const auto& [id, chunks] : data_.chunks) {
    const Document& doc = data_.documents.at(id);
    if (doc.approved_version != chunks.version) continue;
    const std::vector<Word> title = Words(chunks.title);
    for (std::size_t ordinal = 0; ordinal < chunks.contents.size(); ++ordinal) {
      const std::string& content = chunks.contents[ordinal];
      const std::vector<Word> words = Words(content);
      double score = 0;
      bool all = true;
      for (const std::string& stem : stems) {
        const int in_title = CountStem(title, stem);
        const int in_content = CountStem(words, stem);
        all = all && in_title + in_content > 0;
        score += 2.5 * in_title + in_content;
      }
      if (!all) continue;
      hits.emplace_back(
          -score, id, ordinal,
          SearchHit{id, chunks.version, chunks.title, Snippet(content, words, stems), score});
    }
  }
  std::sort(hits.begin(), hits.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), std::get<1>(a), std::get<2>(a)) <
           std::tie(std::get<0>(b), std::get<1>(b), std::get<2>(b));
  });
  std::vector<SearchHit> page;
  for (auto& hit : hits) {
    if (static_cast<int>(page.size()) >= limit) break;
    page.push_back(std::move(std::get<3>(hit)));
  }
  return page;
}

std::vector<std::string> FakeDocumentStore::ListChunks(DocumentId id) {
  std::lock_guard lock(mutex_);
  ThrowIfUnavailable();
  const auto found = data_.chunks.find(id);
  if (found == data_.chunks.end()) return {};
  return found->second.contents;
}

}  // namespace docgate
