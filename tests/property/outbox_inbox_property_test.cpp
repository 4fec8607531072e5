// The outbox and the consumers' inbox against a reference model: random interleavings of
// transitions that enqueue events (through the real DocumentService), two relay instances on one
// database claiming, renewing, delivering, deferring and releasing, relays killed after the
// broker's ack and before MarkDelivered, claims running out (time moves by hand), retention, and on
// the consumer side claims in the inbox with commits and crashes, failures counted up to parking,
// the parked list, replays (Unpark + Requeue) and inbox retention, with duplicate deliveries and
// redeliveries throughout; on the fake store and on SQLite. The model encodes the port contracts
// of app/document_store.h (OutboxStore) and app/inbox_store.h (InboxStore) and predicts
// every answer; the outbox and its backlog are compared after every command. At the end the relays
// drain the outbox: every event was published at least once and every row is delivered.

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "app/inbox_store.h"
#include "app/document_service.h"
#include "app/document_store.h"
#include "property_backends.h"
#include "property_check.h"
#include "property_service.h"
#include "property_show.h"

namespace docgate {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kClaimTtl{600'000};
// Claims age in steps of 170 s, so that no claim is ever just at its end: after three steps it
// has 90 s left, after four it ended 80 s before. SQLite's claims are on its own clock, which also
// moves by the milliseconds the test takes; the margin keeps that from deciding anything.
constexpr milliseconds kAgeStep{170'000};
constexpr int kDocuments = 4;
constexpr int kRelays = 2;
constexpr int kNone = -1;
constexpr std::array<std::string_view, 2> kConsumers{"preview", "ingestion"};
constexpr int kRetentionLimit = 1000;  // every prune takes all it may: ties never matter

// One row of the outbox. Rows are numbered in insertion order, which is sequence order; a pruned
// row stays in the model, not live.
struct OutboxRow {
  int event = 0;
  bool live = true;
  bool delivered = false;
  std::int64_t delivered_at = 0;  // the first MarkDelivered's time
  int owner = kNone;              // the relay whose claim it carries
  std::int64_t until = 0;         // that claim's end, on the claim clock
};

enum class InboxRowState { kFailing, kDone, kParked };

struct InboxRow {
  InboxRowState state = InboxRowState::kDone;
  int attempts = 0;
  std::string last_error;
  std::int64_t updated_at = 0;
};

using Pair = std::pair<int, int>;  // (consumer, event)

struct PipelineModel {
  PipelineModel() { documents.fill(DocumentStatus::kDraft); }

  std::array<DocumentStatus, kDocuments> documents;
  std::vector<std::pair<EventType, int>> events;  // (type, document) of every event, in order
  std::vector<OutboxRow> rows;
  std::array<std::vector<int>, kRelays> hands;  // the rows each relay claimed and still holds
  std::vector<int> publishes;                   // by event: how often a relay handed it over
  std::map<Pair, InboxRow> inbox;
  std::set<Pair> forgotten;  // pairs whose done row inbox retention deleted
  int marked_again = 0;      // MarkDelivered calls on a row already delivered
  int taken_over = 0;        // claims on rows whose claim by the other relay had run out
  std::int64_t now = 0;      // milliseconds since kModelStart, one per command
  std::int64_t claim_now = 0;

  int LiveRow(int event) const {
    for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
      if (rows[r].live && rows[r].event == event) return r;
    }
    return kNone;
  }
  // A broker may hand an event to consumers again while the outbox still holds it (retention is
  // set beyond every redelivery: InboxStore::PruneInbox).
  std::vector<int> Redeliverable() const {
    std::vector<int> events;
    for (int e = 0; e < static_cast<int>(publishes.size()); ++e) {
      if (publishes[e] > 0 && LiveRow(e) != kNone) events.push_back(e);
    }
    return events;
  }
  std::vector<int> Undelivered() const {
    std::vector<int> undelivered;
    for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
      if (rows[r].live && !rows[r].delivered) undelivered.push_back(r);
    }
    return undelivered;
  }
};

Actor Author() { return {"alice", "Alice", true, false, false}; }
Actor Reviewer() { return {"bob", "Bob", false, true, false}; }

struct PipelineSut {
  explicit PipelineSut(std::unique_ptr<PropertyBackend> store)
      : backend(std::move(store)), rig(backend->documents()) {
    for (DocumentId& id : documents) {
      const auto doc = rig.service.Create(Author(), "Guide", "Welcome aboard.");
      if (!doc) throw std::runtime_error("setup: " + doc.error().detail);
      id = doc->id;
    }
  }

  OutboxEvent Event(int event, std::int64_t sequence = 0) const {
    OutboxEvent copy = events.at(event);
    copy.sequence = sequence;
    return copy;
  }
  OutboxEvent RowEvent(const PipelineModel& m, int row) const {
    return Event(m.rows[row].event, sequences.at(row));
  }
  std::vector<OutboxEvent> RowEvents(const PipelineModel& m, const std::vector<int>& rows) const {
    std::vector<OutboxEvent> out;
    for (const int r : rows) out.push_back(RowEvent(m, r));
    return out;
  }
  std::vector<std::int64_t> Sequences(const std::vector<int>& rows) const {
    std::vector<std::int64_t> out;
    for (const int r : rows) out.push_back(sequences.at(r));
    return out;
  }
  // The row just appended: the outbox's last, for `event_id` when given.
  OutboxEvent LastRow(const std::string& event_id = "") {
    const std::vector<OutboxEvent> rows = backend->OutboxRows();
    if (rows.empty()) RC_FAIL("the outbox is empty after an append");
    if (!sequences.empty() && rows.back().sequence <= sequences.back()) {
      RC_FAIL("no new outbox row: the last is " + Show(rows.back()));
    }
    if (!event_id.empty()) ExpectSame(rows.back().event_id, event_id, "requeued event's new row");
    sequences.push_back(rows.back().sequence);
    return rows.back();
  }

  std::unique_ptr<PropertyBackend> backend;
  ServiceRig rig;
  std::array<DocumentId, kDocuments> documents{};
  std::array<ReviewId, kDocuments> reviews{};  // each document's latest review
  std::vector<OutboxEvent> events;             // by model event number, as first appended
  std::vector<std::int64_t> sequences;         // by model row number
  std::map<Pair, int> processed;               // kNew claims committed per (consumer, event)
};

// The live rows, in order, and the backlog of the undelivered ones.
void CheckOutbox(const PipelineModel& m, PipelineSut& sut) {
  std::vector<int> live;
  for (int r = 0; r < static_cast<int>(m.rows.size()); ++r) {
    if (m.rows[r].live) live.push_back(r);
  }
  ExpectSame(sut.backend->OutboxRows(), sut.RowEvents(m, live), "outbox rows");
  const std::vector<int> undelivered = m.Undelivered();
  std::optional<TimePoint> oldest;
  for (const int r : undelivered) {
    const TimePoint at = sut.RowEvent(m, r).occurred_at;
    if (!oldest || at < *oldest) oldest = at;
  }
  const OutboxBacklog backlog = sut.backend->relay(0).Backlog();
  ExpectSame(backlog.pending, std::int64_t{static_cast<std::int64_t>(undelivered.size())},
             "backlog");
  ExpectSameText(ShowOptional(backlog.oldest_occurred_at), ShowOptional(oldest),
                 "oldest undelivered event");
}

using PipelineCommand = rc::state::Command<PipelineModel, PipelineSut>;

// Act applies the command to the model and, given the system, makes the same call there and
// compares its answer with the model's; one millisecond passes before each command.
class Step : public PipelineCommand {
 public:
  void apply(PipelineModel& m) const final {
    ++m.now;
    Act(m, nullptr);
  }
  void run(const PipelineModel& s0, PipelineSut& sut) const final {
    PipelineModel m = s0;
    ++m.now;
    sut.rig.clock.Advance(milliseconds{1});
    std::ostringstream name;
    show(name);
    Within(name.str(), [&] {
      Act(m, &sut);
      CheckOutbox(m, sut);
    });
  }

 protected:
  virtual void Act(PipelineModel& m, PipelineSut* sut) const = 0;
};

// A transition of one document through the service, which appends its event: submit from draft
// or rejected, else withdraw, reject or approve the pending review. Approved documents stay so.
class Transition final : public Step {
 public:
  Transition(int document, int choice) : document_(document), choice_(choice) {}
  explicit Transition(const PipelineModel&)
      : Transition(*rc::gen::inRange(0, kDocuments),
                   *rc::gen::weightedElement<int>({{3, 0}, {3, 1}, {1, 2}})) {}

  void checkPreconditions(const PipelineModel& m) const override {
    RC_PRE(m.documents[document_] != DocumentStatus::kApproved);
  }

 private:
  EventType Type(const PipelineModel& m) const {
    if (m.documents[document_] != DocumentStatus::kPendingReview) return EventType::kSubmitted;
    static constexpr EventType kDecisions[] = {EventType::kWithdrawn, EventType::kRejected,
                                               EventType::kApproved};
    return kDecisions[choice_];
  }

  void Act(PipelineModel& m, PipelineSut* sut) const override {
    const EventType type = Type(m);
    static const std::map<EventType, DocumentStatus> kAfter{
        {EventType::kSubmitted, DocumentStatus::kPendingReview},
        {EventType::kWithdrawn, DocumentStatus::kDraft},
        {EventType::kRejected, DocumentStatus::kRejected},
        {EventType::kApproved, DocumentStatus::kApproved}};
    m.documents[document_] = kAfter.at(type);
    m.events.emplace_back(type, document_);
    m.publishes.push_back(0);
    m.rows.push_back(OutboxRow{static_cast<int>(m.events.size()) - 1});
    if (sut == nullptr) return;

    DocumentService& service = sut->rig.service;
    const DocumentId id = sut->documents[document_];
    const ReviewId review = sut->reviews[document_];
    const Result<docgate::Transition> result =
        type == EventType::kSubmitted   ? service.Submit(Author(), id)
        : type == EventType::kWithdrawn ? service.Withdraw(Author(), id)
        : type == EventType::kRejected  ? service.Reject(Reviewer(), review, "needs an example")
                                        : service.Approve(Reviewer(), review, std::nullopt);
    if (!result) RC_FAIL("the transition was refused: " + result.error().detail);
    sut->reviews[document_] = result->review.id;
    const OutboxEvent appended = sut->LastRow();
    ExpectSame(std::string(ToString(appended.type)), std::string(ToString(type)), "event type");
    ExpectSame(appended.document_id, id, "event's document");
    ExpectSame(appended.review_id, result->review.id, "event's review");
    sut->events.push_back(appended);
  }
  void show(std::ostream& os) const override {
    os << "Transition(doc " << document_ << ", choice " << choice_ << ")";
  }

  int document_;
  int choice_;
};

int GenRelay() { return *rc::gen::inRange(0, kRelays); }

// Mostly a relay that holds claimed rows, when one does.
int GenHolder(const PipelineModel& m) {
  std::vector<int> holders;
  for (int relay = 0; relay < kRelays; ++relay) {
    if (!m.hands[relay].empty()) holders.push_back(relay);
  }
  if (holders.empty()) return GenRelay();
  return *rc::gen::weightedOneOf<int>(
      {{4, rc::gen::elementOf(std::move(holders))}, {1, rc::gen::inRange(0, kRelays)}});
}

// ClaimPending: up to `limit` heads (each document's oldest undelivered row) in sequence order
// that are not claimed, or whose claim ran out, or that this relay claims itself.
class Claim final : public Step {
 public:
  Claim(int relay, int limit) : relay_(relay), limit_(limit) {}
  explicit Claim(const PipelineModel&) : Claim(GenRelay(), *rc::gen::inRange(1, 5)) {}

 private:
  void Act(PipelineModel& m, PipelineSut* sut) const override {
    const PipelineModel before = m;
    std::vector<int> claimed;
    std::set<int> passed;  // documents whose head has been seen
    for (int r = 0; r < static_cast<int>(m.rows.size()); ++r) {
      if (static_cast<int>(claimed.size()) >= limit_) break;
      OutboxRow& row = m.rows[r];
      if (!row.live || row.delivered) continue;
      const bool head = passed.insert(m.events[row.event].second).second;
      const bool free = row.owner == kNone || row.until < m.claim_now || row.owner == relay_;
      if (!head || !free) continue;
      if (row.owner != kNone && row.owner != relay_) ++m.taken_over;
      row.owner = relay_;
      row.until = m.claim_now + kClaimTtl.count();
      claimed.push_back(r);
    }
    m.hands[relay_] = claimed;
    if (sut == nullptr) return;
    ExpectSame(sut->backend->relay(relay_).ClaimPending(limit_), sut->RowEvents(m, claimed),
               "claimed events");
    for (const int r : claimed) {  // the lease: nobody else's unexpired claim is handed out
      const OutboxRow& row = before.rows[r];
      if (row.owner != kNone && row.owner != relay_ && row.until >= before.claim_now) {
        RC_FAIL("row " + std::to_string(r) + " was claimed by relay " + std::to_string(row.owner) +
                " until after now");
      }
    }
  }
  void show(std::ostream& os) const override {
    os << "Claim(relay " << relay_ << ", limit " << limit_ << ")";
  }

  int relay_;
  int limit_;
};

// The relay hands what it holds to the broker (each event published once more) and, unless it
// is killed right after the broker's ack, marks the rows delivered. MarkDelivered ignores rows
// already delivered (they keep the first time) and rows that are gone.
class Deliver final : public Step {
 public:
  Deliver(int relay, bool mark) : relay_(relay), mark_(mark) {}
  explicit Deliver(const PipelineModel& m)
      : Deliver(GenHolder(m), *rc::gen::weightedElement<bool>({{3, true}, {1, false}})) {}

 private:
  void Act(PipelineModel& m, PipelineSut* sut) const override {
    const std::vector<int> hand = std::exchange(m.hands[relay_], {});
    for (const int r : hand) ++m.publishes[m.rows[r].event];
    if (!mark_) return;
    for (const int r : hand) {
      OutboxRow& row = m.rows[r];
      if (row.live && row.delivered) ++m.marked_again;
      if (!row.live || row.delivered) continue;
      row.delivered = true;
      row.delivered_at = m.now;
      row.owner = kNone;
    }
    if (sut != nullptr) {
      sut->backend->relay(relay_).MarkDelivered(sut->Sequences(hand), ModelTime(m.now));
    }
  }
  void show(std::ostream& os) const override {
    os << (mark_ ? "Deliver(relay " : "PublishThenDie(relay ") << relay_ << ")";
  }

  int relay_;
  bool mark_;
};

// Defer after a failed delivery, with no delay: only rows this relay still claims lose their
// claim (and count an attempt); they are due again at once.
class Defer final : public Step {
 public:
  explicit Defer(int relay) : relay_(relay) {}
  explicit Defer(const PipelineModel& m) : Defer(GenHolder(m)) {}

 private:
  void Act(PipelineModel& m, PipelineSut* sut) const override {
    const std::vector<int> hand = std::exchange(m.hands[relay_], {});
    for (const int r : hand) {
      OutboxRow& row = m.rows[r];
      if (row.live && !row.delivered && row.owner == relay_) row.owner = kNone;
    }
    if (sut != nullptr) {
      sut->backend->relay(relay_).Defer(sut->Sequences(hand), milliseconds{0}, milliseconds{0},
                                        "returned");
    }
  }
  void show(std::ostream& os) const override { os << "Defer(relay " << relay_ << ")"; }

  int relay_;
};

// ReleaseClaims: every undelivered row this relay claims is free again. What it holds it may
// still hand over (MarkDelivered checks no claim).
class Release final : public Step {
 public:
  explicit Release(int relay) : relay_(relay) {}
  explicit Release(const PipelineModel&) : Release(GenRelay()) {}

 private:
  void Act(PipelineModel& m, PipelineSut* sut) const override {
    for (OutboxRow& row : m.rows) {
      if (row.live && !row.delivered && row.owner == relay_) row.owner = kNone;
    }
    if (sut != nullptr) sut->backend->relay(relay_).ReleaseClaims();
  }
  void show(std::ostream& os) const override { os << "Release(relay " << relay_ << ")"; }

  int relay_;
};

// RenewClaims: every undelivered row this relay claims, run out or not, is claimed for the TTL
// from now; the answer is how many.
class Renew final : public Step {
 public:
  explicit Renew(const PipelineModel&) : relay_(GenRelay()) {}

 private:
  void Act(PipelineModel& m, PipelineSut* sut) const override {
    std::int64_t renewed = 0;
    for (OutboxRow& row : m.rows) {
      if (!row.live || row.delivered || row.owner != relay_) continue;
      row.until = m.claim_now + kClaimTtl.count();
      ++renewed;
    }
    if (sut != nullptr) {
      ExpectSame(std::int64_t{sut->backend->relay(relay_).RenewClaims()}, renewed, "renewed");
    }
  }
  void show(std::ostream& os) const override { os << "Renew(relay " << relay_ << ")"; }

  int relay_;
};

// Time passes for the claims.
class Age final : public Step {
 public:
  explicit Age(int steps) : steps_(steps) {}
  explicit Age(const PipelineModel&) : Age(*rc::gen::inRange(2, 6)) {}

 private:
  void Act(PipelineModel& m, PipelineSut* sut) const override {
    m.claim_now += steps_ * kAgeStep.count();
    if (sut != nullptr) sut->backend->AgeClaims(steps_ * kAgeStep);
  }
  void show(std::ostream& os) const override { os << "Age(" << steps_ << " x 170 s)"; }

  int steps_;
};

// A retention cutoff: mostly just at, or just after, the time of a row it may delete (`times`),
// so that "before the cutoff" is tested at its edge; else any time so far.
std::int64_t GenCutoff(const PipelineModel& m, std::vector<std::int64_t> times) {
  const auto any = rc::gen::inRange<std::int64_t>(0, m.now + 2);
  if (times.empty()) return *any;
  return *rc::gen::weightedOneOf<std::int64_t>(
      {{1, any},
       {3, rc::gen::map(
               rc::gen::pair(rc::gen::elementOf(std::move(times)), rc::gen::inRange(0, 2)),
               [](const std::pair<std::int64_t, int>& at) { return at.first + at.second; })}});
}

// PruneDelivered: delivered rows whose (first) delivery was before the cutoff go, except an
// approval event of the approved version whose ingestion is not done: no consumer here runs
// ingestion, so every document.approved event stays.
class PruneOutbox final : public Step {
 public:
  explicit PruneOutbox(const PipelineModel& m) : cutoff_(GenCutoff(m, DeliveryTimes(m))) {}

 private:
  static std::vector<std::int64_t> DeliveryTimes(const PipelineModel& m) {
    std::vector<std::int64_t> times;
    for (const OutboxRow& row : m.rows) {
      const bool approval = m.events[row.event].first == EventType::kApproved;
      if (row.live && row.delivered && !approval) times.push_back(row.delivered_at);
    }
    return times;
  }

  void Act(PipelineModel& m, PipelineSut* sut) const override {
    std::int64_t pruned = 0;
    for (OutboxRow& row : m.rows) {
      const bool awaits_ingestion = m.events[row.event].first == EventType::kApproved;
      if (!row.live || !row.delivered || row.delivered_at >= cutoff_ || awaits_ingestion) continue;
      row.live = false;
      ++pruned;
    }
    if (sut != nullptr) {
      const int deleted =
          sut->backend->relay(0).PruneDelivered(ModelTime(cutoff_), kRetentionLimit);
      ExpectSame(std::int64_t{deleted}, pruned, "outbox rows pruned");
    }
  }
  void show(std::ostream& os) const override { os << "PruneOutbox(before " << cutoff_ << ")"; }

  std::int64_t cutoff_;
};

std::string ConsumerName(int consumer) { return std::string(kConsumers[consumer]); }

int GenConsumer() { return *rc::gen::inRange(0, static_cast<int>(kConsumers.size())); }

// A consumer on a copy of the event the broker delivers (again).
class Delivery : public Step {
 public:
  void checkPreconditions(const PipelineModel& m) const override {
    const std::vector<int> events = m.Redeliverable();
    RC_PRE(std::find(events.begin(), events.end(), event_) != events.end());
  }

 protected:
  explicit Delivery(const PipelineModel& m) : consumer_(GenConsumer()), event_(GenEvent(m)) {}

  static int GenEvent(const PipelineModel& m) {
    std::vector<int> events = m.Redeliverable();
    RC_PRE(!events.empty());
    return *rc::gen::elementOf(std::move(events));
  }

  int consumer_;
  int event_;
};

// BeginConsumer + Claim: a pair never processed (or only failed so far) is new and recorded as
// done if the consumer commits; one done or parked is left alone. A consumer that dies before
// committing leaves the inbox as it was.
class Consume final : public Delivery {
 public:
  explicit Consume(const PipelineModel& m)
      : Delivery(m), commit_(*rc::gen::weightedElement<bool>({{4, true}, {1, false}})) {}

 private:
  void Act(PipelineModel& m, PipelineSut* sut) const override {
    const Pair pair{consumer_, event_};
    const auto found = m.inbox.find(pair);
    const bool fresh = found == m.inbox.end() || found->second.state == InboxRowState::kFailing;
    const InboxState expected = fresh                                         ? InboxState::kNew
                                : found->second.state == InboxRowState::kDone ? InboxState::kDone
                                                                              : InboxState::kParked;
    if (fresh && commit_) {
      InboxRow& row = m.inbox[pair];
      row.state = InboxRowState::kDone;
      row.updated_at = m.now;
    }
    if (sut == nullptr) return;
    const std::string& event_id = sut->events.at(event_).event_id;
    {
      const auto tx = sut->backend->inbox().BeginConsumer();
      const InboxState state = tx->Claim(ConsumerName(consumer_), event_id, ModelTime(m.now));
      ExpectSame(state, expected, "inbox claim of " + ConsumerName(consumer_) + " on " + event_id);
      if (state == InboxState::kNew && commit_) {
        tx->Commit();
        ++sut->processed[pair];
      }
    }
    if (sut->processed[pair] > 1 && !m.forgotten.contains(pair)) {
      RC_FAIL(ConsumerName(consumer_) + " processed " + event_id + " twice");
    }
  }
  void show(std::ostream& os) const override {
    os << (commit_ ? "Consume(" : "ConsumeThenDie(") << ConsumerName(consumer_) << ", event "
       << event_ << ")";
  }

  bool commit_;
};

// RecordFailure: one attempt more for a pair never done; it parks when the attempts reach the
// limit. A pair done or parked is left alone and reported as it is.
class Fail final : public Delivery {
 public:
  explicit Fail(const PipelineModel& m) : Delivery(m), max_attempts_(*rc::gen::inRange(1, 4)) {}

 private:
  void Act(PipelineModel& m, PipelineSut* sut) const override {
    const std::string error = "attempt at " + std::to_string(m.now) + " failed";
    const auto [found, inserted] = m.inbox.try_emplace(Pair{consumer_, event_});
    InboxRow& row = found->second;
    if (inserted) row.state = InboxRowState::kFailing;
    if (row.state == InboxRowState::kFailing) {
      ++row.attempts;
      row.last_error = error;
      row.updated_at = m.now;
      if (row.attempts >= max_attempts_) row.state = InboxRowState::kParked;
    }
    if (sut == nullptr) return;
    const ConsumerFailure failure = sut->backend->inbox().RecordFailure(
        ConsumerName(consumer_), sut->Event(event_), error, max_attempts_, ModelTime(m.now));
    ExpectSameText(Show(failure),
                   Show(ConsumerFailure{row.attempts, row.state == InboxRowState::kParked}),
                   "failure of " + ConsumerName(consumer_) + " on event " + std::to_string(event_));
  }
  void show(std::ostream& os) const override {
    os << "Fail(" << ConsumerName(consumer_) << ", event " << event_ << ", max " << max_attempts_
       << ")";
  }

  int max_attempts_;
};

// The parked pairs, oldest parked first (ties: consumer, then event id).
std::vector<ParkedEvent> Parked(const PipelineModel& m, const PipelineSut& sut) {
  std::vector<ParkedEvent> parked;
  for (const auto& [pair, row] : m.inbox) {
    if (row.state != InboxRowState::kParked) continue;
    parked.push_back(ParkedEvent{ConsumerName(pair.first), sut.Event(pair.second), row.attempts,
                                 row.last_error, ModelTime(row.updated_at)});
  }
  std::sort(parked.begin(), parked.end(), [](const ParkedEvent& a, const ParkedEvent& b) {
    return std::tie(a.parked_at, a.consumer, a.event.event_id) <
           std::tie(b.parked_at, b.consumer, b.event.event_id);
  });
  return parked;
}

class ListParked final : public Step {
 public:
  explicit ListParked(const PipelineModel&) : limit_(*rc::gen::inRange(1, 8)) {}

 private:
  void Act(PipelineModel& m, PipelineSut* sut) const override {
    if (sut == nullptr) return;
    std::vector<ParkedEvent> expected = Parked(m, *sut);
    expected.resize(std::min<std::size_t>(expected.size(), limit_));
    ExpectSameText(Show(sut->backend->inbox().ListParked(limit_)), Show(expected),
                   "parked events");
  }
  void show(std::ostream& os) const override { os << "ListParked(" << limit_ << ")"; }

  int limit_;
};

// An operator's replay (docgate events replay): Unpark deletes the parked pairs of one event (or
// of all) and answers their events once each, oldest parked first; each is put back into the
// outbox with Requeue: its row reset to undelivered and unclaimed, or written anew after the
// outbox pruned it.
class Replay final : public Step {
 public:
  explicit Replay(const PipelineModel& m) : event_(GenEvent(m)) {}

  void checkPreconditions(const PipelineModel& m) const override {
    RC_PRE(event_ < static_cast<int>(m.events.size()));
  }

 private:
  static int GenEvent(const PipelineModel& m) {
    RC_PRE(!m.events.empty());
    std::vector<int> parked;
    for (const auto& [pair, row] : m.inbox) {
      if (row.state == InboxRowState::kParked) parked.push_back(pair.second);
    }
    const auto any = rc::gen::inRange(0, static_cast<int>(m.events.size()));
    if (parked.empty()) return *rc::gen::weightedOneOf<int>({{1, rc::gen::just(kNone)}, {3, any}});
    return *rc::gen::weightedOneOf<int>(
        {{1, rc::gen::just(kNone)}, {2, any}, {6, rc::gen::elementOf(std::move(parked))}});
  }

  void Act(PipelineModel& m, PipelineSut* sut) const override {
    // Each pair parks at its own time (one command, one millisecond), so the order is total.
    std::vector<std::pair<std::int64_t, int>> deleted;  // (parked at, event)
    for (auto it = m.inbox.begin(); it != m.inbox.end();) {
      const bool match = it->second.state == InboxRowState::kParked &&
                         (event_ == kNone || it->first.second == event_);
      if (!match) {
        ++it;
        continue;
      }
      deleted.emplace_back(it->second.updated_at, it->first.second);
      it = m.inbox.erase(it);
    }
    std::sort(deleted.begin(), deleted.end());
    std::vector<int> unparked;
    for (const auto& [at, event] : deleted) {
      if (std::find(unparked.begin(), unparked.end(), event) == unparked.end()) {
        unparked.push_back(event);
      }
    }
    std::vector<OutboxEvent> answer;
    if (sut != nullptr) {
      std::optional<std::string> id;
      if (event_ != kNone) id = sut->events.at(event_).event_id;
      answer = sut->backend->inbox().Unpark(id);
      std::vector<OutboxEvent> expected;
      for (const int e : unparked) expected.push_back(sut->Event(e));
      ExpectSame(answer, expected, "unparked events");
    }
    for (std::size_t i = 0; i < unparked.size(); ++i) {
      const int event = unparked[i];
      const int live = m.LiveRow(event);
      if (live != kNone) {
        m.rows[live].delivered = false;
        m.rows[live].owner = kNone;
      } else {
        m.rows.push_back(OutboxRow{event});
      }
      if (sut == nullptr) continue;
      sut->backend->relay(0).Requeue(answer[i]);
      if (live == kNone) sut->LastRow(answer[i].event_id);
    }
  }
  void show(std::ostream& os) const override {
    os << "Replay(" << (event_ == kNone ? std::string("all") : "event " + std::to_string(event_))
       << ")";
  }

  int event_;
};

// PruneInbox: done pairs last written before the cutoff whose event the outbox no longer holds.
class PruneInbox final : public Step {
 public:
  explicit PruneInbox(const PipelineModel& m) : cutoff_(GenCutoff(m, DoneTimes(m))) {}

 private:
  static std::vector<std::int64_t> DoneTimes(const PipelineModel& m) {
    std::vector<std::int64_t> times;
    for (const auto& [pair, row] : m.inbox) {
      if (row.state == InboxRowState::kDone && m.LiveRow(pair.second) == kNone) {
        times.push_back(row.updated_at);
      }
    }
    return times;
  }

  void Act(PipelineModel& m, PipelineSut* sut) const override {
    std::int64_t pruned = 0;
    for (auto it = m.inbox.begin(); it != m.inbox.end();) {
      const InboxRow& row = it->second;
      if (row.state != InboxRowState::kDone || row.updated_at >= cutoff_ ||
          m.LiveRow(it->first.second) != kNone) {
        ++it;
        continue;
      }
      m.forgotten.insert(it->first);
      it = m.inbox.erase(it);
      ++pruned;
    }
    if (sut != nullptr) {
      const int deleted = sut->backend->inbox().PruneInbox(ModelTime(cutoff_), kRetentionLimit);
      ExpectSame(std::int64_t{deleted}, pruned, "inbox rows pruned");
    }
  }
  void show(std::ostream& os) const override { os << "PruneInbox(before " << cutoff_ << ")"; }

  std::int64_t cutoff_;
};

void RunPipeline(std::unique_ptr<PropertyBackend> (*make_backend)(milliseconds)) {
  const PipelineModel initial;
  PipelineSut sut(make_backend(kClaimTtl));
  const auto commands = *rc::state::gen::commands(
      initial,
      rc::state::gen::execOneOfWithArgs<Transition, Transition, Transition, Transition, Claim,
                                        Claim, Claim, Claim, Deliver, Deliver, Deliver, Defer,
                                        Release, Renew, Renew, Age, Age, Age, PruneOutbox,
                                        PruneOutbox, Consume, Consume, Consume, Consume, Fail, Fail,
                                        Fail, ListParked, Replay, PruneInbox, PruneInbox>());
  rc::state::runAll(commands, initial, sut);

  // Both relays stop (their claims released), then relay 0 drains the outbox. Each round delivers
  // at least one head, so it ends.
  PipelineModel m = initial;
  rc::state::applyAll(commands, m);
  const auto perform = [&](const Step& step) {
    step.run(m, sut);
    step.apply(m);
  };
  perform(Release(0));
  perform(Release(1));
  for (std::size_t round = 0; !m.Undelivered().empty(); ++round) {
    if (round > m.rows.size()) RC_FAIL("the outbox does not drain");
    perform(Claim(0, 100));
    perform(Deliver(0, true));
  }
  Within("the end: every event published, no claim left", [&] {
    for (int e = 0; e < static_cast<int>(m.events.size()); ++e) {
      if (m.publishes[e] < 1) RC_FAIL("event " + std::to_string(e) + " was never published");
    }
    ExpectSame(sut.backend->relay(1).ClaimPending(100), std::vector<OutboxEvent>{},
               "claims after the drain");
  });
  RC_CLASSIFY(std::any_of(m.publishes.begin(), m.publishes.end(), [](int n) { return n > 1; }),
              "an event published twice");
  RC_CLASSIFY(!m.forgotten.empty(), "inbox retention");
  RC_CLASSIFY(std::any_of(sut.processed.begin(), sut.processed.end(),
                          [](const auto& entry) { return entry.second > 1; }),
              "processed again after inbox retention");
  RC_CLASSIFY(m.taken_over > 0, "a claim taken over");
  RC_CLASSIFY(m.marked_again > 0, "marked delivered twice");
  RC_CLASSIFY(
      std::any_of(m.inbox.begin(), m.inbox.end(),
                  [](const auto& entry) { return entry.second.state == InboxRowState::kParked; }),
      "parked at the end");
}

TEST(OutboxInboxPropertyTest, MatchesTheModelOnTheFakeStore) {
  CheckProperty(PropertyBudget{.cases = 800, .max_size = 120},
                [] { RunPipeline(&MakeFakeBackend); });
}

TEST(OutboxInboxPropertyTest, MatchesTheModelOnSqlite) {
  CheckProperty(PropertyBudget{.cases = 150, .max_size = 100, .shrink = false},
                [] { RunPipeline(&MakeSqliteBackend); });
}

}  // namespace
}  // namespace docgate
