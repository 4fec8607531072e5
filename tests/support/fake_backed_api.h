#pragma once

// A real RestApi, with the services it calls, over the in-memory fakes: the HTTP boundary in a
// unit test, nothing running. Requests go straight to RestApi::Handle.

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "adapters/http/jwt_auth.h"
#include "adapters/http/rest_api.h"
#include "app/document_service.h"
#include "app/idempotency.h"
#include "app/preview_projection.h"
#include "app/reader_service.h"
#include "app/user_names.h"
#include "fakes/counting_wakeup.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_lock_gate.h"
#include "fakes/fake_random.h"
#include "fakes/fake_stores.h"

namespace docgate {

struct FakeBackedApi {
  // `health` defaults to a database that is up.
  explicit FakeBackedApi(HealthChecks health = DatabaseUp())
      : api(service, reader, idempotency, users, verifier, std::move(health)) {}

  static HealthChecks DatabaseUp() {
    HealthChecks health;
    health.database = [] { return true; };
    return health;
  }

  // "Bearer <token>" for `subject` with `roles`, valid for an hour.
  std::string Bearer(const std::string& subject, std::vector<std::string> roles) {
    return "Bearer " + SignHs256Token(kSecret,
                                      TokenClaims{subject, std::move(roles), std::nullopt,
                                                  clock.Now() + std::chrono::hours(1)},
                                      clock.Now());
  }

  static constexpr char kSecret[] = "fake-backed-api-test-secret";
  FakeClock clock;
  FakeRandom random;
  FakeStores fakes = OpenFakeStores();
  FakeDatabase& database = *fakes.database;
  Stores& stores = fakes.stores;
  FakeLockGate gate{clock, random};
  CountingWakeup wakeup;
  DocumentService service{*stores.documents, gate, clock, random, wakeup};
  JwtVerifier verifier{{kSecret}, clock};
  IdempotencyService idempotency{*stores.idempotency, clock, random, IdempotencyConfig{}};
  ReaderService reader{*stores.documents, *stores.previews, *stores.chunks};
  UserNames users{*stores.users, clock};
  RestApi api;
};

}  // namespace docgate
