#pragma once

// The real DocumentService as the properties drive it: over a backend's store, with the in-process
// gate, a clock that moves only when told and deterministic event ids.

#include <chrono>
#include <cstdint>

#include "adapters/in_process/in_process_lock_gate.h"
#include "app/document_service.h"
#include "core/model.h"
#include "fakes/counting_wakeup.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_random.h"

namespace docgate {

// The models count time in milliseconds from this instant; the service's clock starts there.
inline constexpr TimePoint kModelStart{std::chrono::milliseconds{1'798'000'000'000}};

inline TimePoint ModelTime(std::int64_t ms) { return kModelStart + std::chrono::milliseconds{ms}; }

struct ServiceRig {
  explicit ServiceRig(DocumentStore& store) : service(store, gate, clock, event_ids, wakeup) {}

  FakeClock clock{kModelStart};
  FakeRandom event_ids;
  FakeRandom gate_tokens;
  InProcessLockGate gate{clock, gate_tokens};
  CountingWakeup wakeup;
  DocumentService service;
};

}  // namespace docgate
