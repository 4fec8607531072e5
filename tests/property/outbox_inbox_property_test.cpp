// The outbox and the consumers' inbox against a reference model: random interleavings of
// transitions that enqueue events (through the real DocumentService), two relay instances on one
// database claiming, renewing, delivering, deferring and releasing, relays killed after the
// broker's ack and before MarkDelivered, claims running out (time moves by hand), retention, and on
// the consumer side claims in the inbox with commits and crashes, failures counted up to parking,
// the parked list, replays (Unpark + Requeue) and inbox retention, with duplicate deliveries and
// redeliveries throughout; on the fake store and on SQLite. The model encodes the port contracts
// of app/ports/outbox_store.h (OutboxStore) and app/ports/inbox_store.h (InboxStore) and predicts
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
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "outbox_inbox_property_model.h"
#include "outbox_inbox_property_outbox_steps.h"
#include "property_backends.h"
#include "property_check.h"
#include "property_show.h"

namespace docgate::outbox_inbox_property {
namespace {

// The inbox side: consumers claiming, committing and failing, the parked list, replays and inbox
// retention; then the whole pipeline on each backend.

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
    ExpectSameText(Show(sut->backend->inbox().ListParked(limit_)), Show(expected), "parked events");
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
}  // namespace docgate::outbox_inbox_property
