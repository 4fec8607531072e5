#pragma once

#include <chrono>
#include <string>

namespace docgate {

struct PgConfig {
  // A libpq URI (postgresql://user:pass@host:port/db?sslmode=require) or key=value conninfo; every
  // libpq parameter in it is honoured except connect_timeout, which comes from below.
  std::string url;
  int pool_size = 8;                                  // connections at most
  std::chrono::milliseconds connect_timeout{5000};    // libpq connect_timeout, whole seconds >= 1
  std::chrono::milliseconds statement_timeout{5000};  // server-side, row-lock waits included
  std::chrono::milliseconds pool_wait_timeout{5000};  // max wait for a free connection
  // How long claimed outbox rows stay claimed after ClaimPending or RenewClaims.
  std::chrono::milliseconds outbox_claim_ttl{3000};
};

}  // namespace docgate
