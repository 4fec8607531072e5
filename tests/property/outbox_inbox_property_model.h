// The reference model of the outbox and inbox property (outbox_inbox_property_test.cpp): the
// model's outbox rows, inbox rows and events, the system under test, the outbox check made after
// every command, and Step, the base of every command.
#pragma once

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

#include "app/document_service.h"
#include "app/ports/outbox_store.h"
#include "property_backends.h"
#include "property_check.h"
#include "property_service.h"
#include "property_show.h"

namespace docgate::outbox_inbox_property {

using std::chrono::milliseconds;

inline constexpr milliseconds kClaimTtl{600'000};
// Claims age in steps of 170 s, so that no claim is ever just at its end: after three steps it
// has 90 s left, after four it ended 80 s before. SQLite's claims are on its own clock, which also
// moves by the milliseconds the test takes; the margin keeps that from deciding anything.
inline constexpr milliseconds kAgeStep{170'000};
inline constexpr int kDocuments = 4;
inline constexpr int kRelays = 2;
inline constexpr int kNone = -1;
inline constexpr std::array<std::string_view, 2> kConsumers{"preview", "ingestion"};
inline constexpr int kRetentionLimit = 1000;  // every prune takes all it may: ties never matter

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

inline Actor Author() { return {"alice", "Alice", true, false, false}; }
inline Actor Reviewer() { return {"bob", "Bob", false, true, false}; }

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
inline void CheckOutbox(const PipelineModel& m, PipelineSut& sut) {
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

}  // namespace docgate::outbox_inbox_property
