#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/ports/consumer_transaction.h"
#include "core/model.h"

namespace docgate {

// A failed attempt, as RecordFailure counted it.
struct ConsumerFailure {
  int attempts = 0;     // failed attempts of this (consumer, event_id) so far, this one included
  bool parked = false;  // attempts reached the limit: the event is parked for this consumer
};

// An event a consumer gave up on, kept with the event so that it can be replayed.
struct ParkedEvent {
  std::string consumer;
  OutboxEvent event;  // sequence is 0: the outbox row may be gone
  int attempts = 0;
  std::string last_error;
  TimePoint parked_at{};
};

// The inbox of the built-in consumers (ADR 0004): the consumer transactions that claim an event
// for a consumer, the failures counted and the events parked. Thread-safe; several processes on
// one database may use it at once. Throws StorageUnavailable / StorageError like DocumentStore.
//
// Writes whose effect is not idempotent (RecordFailure, Unpark) take effect at most once per call:
// a store tries one again only when it knows the first try did not commit. StorageUnavailable from
// one of them means "not done" or, when the commit's outcome was lost with the connection, maybe
// "done, answer lost"; see each method for what the caller does then.
class InboxStore {
 public:
  virtual ~InboxStore() = default;
  virtual std::unique_ptr<ConsumerTransaction> BeginConsumer() = 0;

  // Records a failed attempt of (consumer, event.event_id) in its own transaction: the attempt
  // count grows by one and `error` is kept; when it reaches `max_attempts` the event is parked for
  // this consumer (kept whole, with `at`). A pair already done or parked is left alone and
  // reported as it is. A StorageUnavailable leaves the attempt counted or not; the caller retries
  // the delivery, whose next failure is a new attempt, so no attempt is ever counted twice.
  virtual ConsumerFailure RecordFailure(std::string_view consumer, const OutboxEvent& event,
                                        std::string_view error, int max_attempts, TimePoint at) = 0;
  // Parked events, oldest parked first, at most `limit`.
  virtual std::vector<ParkedEvent> ListParked(int limit) = 0;
  // Un-parks the parked pairs of `event_id` (every parked event when nullopt): their inbox rows
  // are deleted, so the consumers run again on the next delivery. Returns the events un-parked,
  // each once even when several consumers had parked it. A StorageUnavailable whose message says
  // "outcome unknown" (the connection broke during the commit) may have deleted the rows; the
  // events are then no longer listed as parked and must be put back by hand (docs/runbook.md).
  virtual std::vector<OutboxEvent> Unpark(const std::optional<std::string>& event_id) = 0;
  // Deletes up to `limit` `done` inbox rows last written before `cutoff` whose event is no longer
  // in the outbox; returns how many. A `done` row is what makes a redelivery a no-op, so the
  // caller's cutoff must lie behind every redelivery still possible: at least the outbox retention
  // (OutboxStore::PruneDelivered), after which the relay and the reconciler cannot send the event
  // again; an event still in the outbox (pending, or an approval kept for its ingestion) keeps its
  // rows at any age. `failing` and `parked` rows are never deleted: they are the operators' to
  // replay.
  virtual int PruneInbox(TimePoint cutoff, int limit) = 0;
};

}  // namespace docgate
