// The outbox side of the outbox and inbox property (outbox_inbox_property_test.cpp): transitions
// that append events, and the relays claiming, delivering, deferring, releasing and renewing,
// claims running out, and outbox retention.
#pragma once

#include <rapidcheck.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "outbox_inbox_property_model.h"

namespace docgate::outbox_inbox_property {

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

inline int GenRelay() { return *rc::gen::inRange(0, kRelays); }

// Mostly a relay that holds claimed rows, when one does.
inline int GenHolder(const PipelineModel& m) {
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
inline std::int64_t GenCutoff(const PipelineModel& m, std::vector<std::int64_t> times) {
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

}  // namespace docgate::outbox_inbox_property
