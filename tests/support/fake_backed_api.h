#pragma once

// A real RestApi, with the services it calls, over the in-memory fakes: the HTTP boundary in a
// unit test, nothing running. Requests go straight to RestApi::Handle.

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "adapters/crypto/openssl_digest.h"
#include "adapters/http/jwt_auth.h"
#include "adapters/http/rest_api.h"
#include "adapters/http/sign_in_cookies.h"
#include "app/console_sessions.h"
#include "app/document_import.h"
#include "app/document_service.h"
#include "app/idempotency.h"
#include "app/preview_projection.h"
#include "app/reader_service.h"
#include "app/user_names.h"
#include "fakes/counting_wakeup.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_converter.h"
#include "fakes/fake_lock_gate.h"
#include "fakes/fake_random.h"
#include "fakes/fake_stores.h"

namespace docgate {

struct FakeBackedApi {
  // `health` defaults to a database that is up. With a `provider`, the console signs in through
  // it (at `public_url`), its sessions in the fake stores.
  explicit FakeBackedApi(HealthChecks health = DatabaseUp(), SignInProvider* provider = nullptr,
                         std::string public_url = kPublicUrl)
      : api(service, reader, idempotency, users, verifier, std::move(health),
            provider == nullptr
                ? ConsoleSignIn{}
                : ConsoleSignIn{provider, &sessions, &random, &clock, std::move(public_url),
                                LoginStateKey(digest, kSecret)},
            &importer) {}

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
  static constexpr char kPublicUrl[] = "https://kb.example.com";
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
  OpenSslDigest digest;
  ConsoleSessions sessions{*stores.sessions, digest, random, clock, std::chrono::hours(8)};
  // Imports take files of up to kImportMaxBytes, "converted" by the fake.
  static constexpr std::size_t kImportMaxBytes = 64 * 1024;
  FakeConverter converter;
  DocumentImporter importer{service, converter, digest, kImportMaxBytes};
  RestApi api;
};

}  // namespace docgate
