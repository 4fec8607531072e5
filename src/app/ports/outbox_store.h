#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/model.h"

namespace docgate {

struct OutboxBacklog {
  std::int64_t pending = 0;
  std::optional<TimePoint> oldest_occurred_at;
};

// The delivery side of the outbox. Thread-safe.
//
// Per document, events leave in transition order: ClaimPending returns only each document's oldest
// undelivered event (its head), so the next event of a document becomes claimable only once the
// one before it is delivered, whichever instance delivers it.
class OutboxStore {
 public:
  virtual ~OutboxStore() = default;
  // Up to `limit` head events in ascending sequence whose retry time has come, claimed for this
  // caller: until the claim expires (the store's claim TTL after the claim or its last renewal) or
  // they are marked delivered or deferred, no other OutboxStore instance on the same database
  // returns them (nor, being heads, any later event of their documents), so several docgate
  // processes can relay from one database. The same instance gets its own unexpired claims back (a
  // retry after a failed delivery).
  virtual std::vector<OutboxEvent> ClaimPending(int limit) = 0;
  // Extends every claim this instance holds on an undelivered row to the claim TTL from now, on the
  // same clock as ClaimPending, and returns how many rows that is. A claim is this instance's
  // until the row is delivered, deferred or released, or until another instance claims it after
  // it ran out; a claim that ran out and was not taken is renewed too, as nobody else can have
  // delivered the row meanwhile. A count below the rows the caller is delivering therefore means
  // another instance took some of them over (and may be delivering them too). A relay calls this
  // while a slow batch is in flight, so that its claims can be short and a killed instance's rows
  // are taken over soon.
  virtual int RenewClaims() = 0;
  // Marks the given events delivered; they are never returned by ClaimPending again.
  virtual void MarkDelivered(const std::vector<std::int64_t>& sequences, TimePoint at) = 0;
  // Puts events back for a later attempt after a delivery that did not succeed (unroutable,
  // refused, a consumer failed): their claim ends, their attempt count grows by one and records
  // `reason`, and ClaimPending skips them until delay * 2^(attempts - 1), capped at max_delay, has
  // passed. Their documents' later events wait behind them.
  virtual void Defer(const std::vector<std::int64_t>& sequences, std::chrono::milliseconds delay,
                     std::chrono::milliseconds max_delay, std::string_view reason) = 0;
  // Gives up this instance's claims on rows not yet delivered, so that any instance (a restarted
  // one included) can deliver them at once instead of after the claim expires. Called when the
  // relay stops; a crashed instance's claims simply expire.
  virtual void ReleaseClaims() = 0;
  // Deletes up to `limit` events delivered before `cutoff`, oldest first, and returns how many;
  // undelivered events are never deleted, nor is the document.approved event of a document's
  // approved_version while its ingest_status is not `done` (the reconciler replays it:
  // FindStuckIngestions).
  virtual int PruneDelivered(TimePoint cutoff, int limit) = 0;
  // Undelivered events and the oldest one's occurred_at (nullopt when none), for readiness and
  // metrics.
  virtual OutboxBacklog Backlog() = 0;

  // Puts `event` back into the outbox as undelivered (by event_id: the row is reset when it still
  // exists, written again when it was pruned), with no attempts and no claim, so the relay
  // delivers it again with the same event_id. Tells the relay through the usual wake-up.
  virtual void Requeue(const OutboxEvent& event) = 0;

  // The approval events of approved versions whose ingestion is missing or stuck: the document's
  // approved_version is set, its ingest_status is `pending` or `none`, and the document.approved
  // event of that version (the outbox's newest for it) was delivered before `delivered_before`.
  // Oldest delivery first, at most `limit`. Events still waiting in the outbox are not stuck,
  // `failed` means parked, which is for an operator, and a version whose chunks are written is
  // ingested: it is pending on its vectors, which the embedding worker keeps after (ADR 0010). The
  // outbox never prunes the approval event of a version whose ingestion is not done, so every such
  // version is found.
  virtual std::vector<OutboxEvent> FindStuckIngestions(TimePoint delivered_before, int limit) = 0;
};

}  // namespace docgate
