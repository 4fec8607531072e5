#pragma once

#include <chrono>
#include <memory>

#include "app/ports/clock.h"
#include "app/stores.h"
#include "fakes/fake_database.h"

namespace docgate {

// One in-memory database as one fake per storage port (ADR 0006), the fakes' OpenPgStores.
struct FakeStores {
  // The data every store below shares: fault injection (FailNextBegin, FailNextCommit,
  // SetUnavailable) and what tests inspect (AllEvents, IdempotencyKeyCount, InboxRowCount).
  // Another relay instance on it: std::make_shared<FakeOutboxStore>(database).
  std::shared_ptr<FakeDatabase> database;
  // FakeDocumentStore, FakeOutboxStore (the first relay instance), FakeIdempotencyStore,
  // FakeInboxStore, FakePreviewStore, FakeChunkIndex, ... on `database`; no pool statistics.
  Stores stores;
};

// Claims on the system clock, for 3 s; writers wait at most `lock_timeout` for the writer slot.
FakeStores OpenFakeStores(std::chrono::milliseconds lock_timeout = std::chrono::seconds(5));
// Claims last `claim_ttl` on `claim_clock`, which must outlive the stores.
FakeStores OpenFakeStores(Clock& claim_clock, std::chrono::milliseconds claim_ttl);

}  // namespace docgate
