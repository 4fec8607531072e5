#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

#include "app/document_service.h"
#include "app/idempotent_outcome.h"
#include "app/ports/clock.h"
#include "app/ports/idempotency_store.h"
#include "app/ports/random_source.h"
#include "core/model.h"

namespace docgate {

struct IdempotencyConfig {
  std::chrono::hours ttl{24};  // DOCGATE_IDEMPOTENCY_TTL_HOURS: how long a response is replayed
  // How long a key stays in flight without an answer: if the process dies mid-request, the key is
  // free again after this. Longer than any request can run (the store's timeouts bound them).
  std::chrono::milliseconds lease{30000};
  int prune_batch = 1000;  // expired records deleted per statement
};

// Why `config` cannot be used, in one line (naming DOCGATE_IDEMPOTENCY_TTL_HOURS for the TTL), or
// nullopt when it can: a ttl of 1 hour..1 year, a positive lease, prune_batch 1..100000.
std::optional<std::string> ValidateIdempotencyConfig(const IdempotencyConfig& config);

// One request under an Idempotency-Key.
struct IdempotentRequest {
  std::string caller;       // the authenticated user: keys are per caller
  std::string key;          // the Idempotency-Key
  std::string fingerprint;  // identifies the request (method, path, body); opaque here
};

enum class IdempotencyVerdict {
  kProceed,    // the key is this request's now: run it, then complete or abandon the key
  kReplay,     // the same request already answered: send the stored answer again
  kKeyReused,  // the key belongs to a different request (in flight or answered)
  kInFlight,   // the same request is still running elsewhere
};

struct IdempotencyDecision {
  IdempotencyVerdict verdict = IdempotencyVerdict::kProceed;
  std::string owner;  // kProceed: this request's reservation, for the calls below
  // kReplay: the stored record, EncodeOutcome's text (DecodeOutcome) - or, when IsEncodedOutcome
  // says it is not, a record written before outcomes were stored, in the caller's own form.
  std::string response;
};

// Which refusals are stored and replayed like a success: only a decision on the state of rows the
// use case read under lock, which a retry should see again - INVALID_STATE (the transition is not
// allowed from the current state), SELF_REVIEW (four eyes, decided on the review's editors) and
// ALREADY_VOTED (decided on the review's approvals).
// Every other refusal is false here and is never stored, its key given back: VALIDATION (a body,
// path, header or field bound), UNAUTHENTICATED (refused before any key is looked at), FORBIDDEN (a
// missing role, or not the document's author) and NOT_FOUND (no such document or review) refuse a
// request that was never admitted, had no effect and costs its retry no more than the first try;
// LOCK_BUSY and UNAVAILABLE are answers a retry may change; the IDEMPOTENCY_* answers are the key's
// own. So an unadmitted request cannot leave a row behind, whatever key it carries.
bool IsStoredRefusal(ErrorCode code);

// The Idempotency-Key protocol over an IdempotencyStore. A request with a key first calls Begin;
// on kProceed it runs its use case with the hook of CompleteOnCommit, so that the outcome is
// stored in the effect's own transaction (a crash leaves both or neither), or, when the use case
// ended without an effect, stores its outcome with CompleteWithoutEffect (a refusal only when
// IsStoredRefusal), or gives the key up with Abandon when the outcome should not be replayed (the
// service was unavailable, a bug). What is stored is an IdempotentOutcome, encoded by
// EncodeOutcome: the caller (the HTTP layer) renders it, on the first answer and on a replay.
// Nothing here catches: the store's exceptions propagate. Thread-safe; the references must outlive
// the service.
class IdempotencyService {
 public:
  IdempotencyService(IdempotencyStore& store, Clock& clock, RandomSource& random,
                     IdempotencyConfig config = {});

  // Reserves the key for `request` for one lease, or tells why not.
  IdempotencyDecision Begin(const IdempotentRequest& request);

  // A CommitHook storing the committed outcome as the answer of `owner`'s reservation, kept for the
  // TTL, in the effect's transaction: the same outcome the use case answers with (its Transition's
  // or Document's rows, or its comment). When the reservation is no longer
  // `owner`'s (its lease ran out and another request took the key), the hook throws StorageError
  // and the effect rolls back.
  CommitHook CompleteOnCommit(const IdempotentRequest& request, const std::string& owner);
  // Stores `outcome` (an answer without an effect, such as a refusal) for the TTL. False when the
  // reservation is no longer `owner`'s; nothing is stored then.
  bool CompleteWithoutEffect(const IdempotentRequest& request, const std::string& owner,
                             const IdempotentOutcome& outcome);
  // Frees the key at once, if `owner` still holds it in flight, so that a retry may run.
  void Abandon(const IdempotentRequest& request, const std::string& owner);

  // Deletes every expired record (answered ones after the TTL, in-flight ones after their lease),
  // prune_batch per statement; returns how many.
  int PruneExpired();

  const IdempotencyConfig& config() const { return config_; }

 private:
  IdempotencyStore& store_;
  Clock& clock_;
  RandomSource& random_;
  const IdempotencyConfig config_;
};

}  // namespace docgate
