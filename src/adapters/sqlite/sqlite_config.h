#pragma once

#include <chrono>
#include <string>

namespace docgate {

struct SqliteConfig {
  std::string path = "./data/docgate.db";        // file; its directory is created if missing
  int pool_size = 4;                             // connections; bounds concurrency
  std::chrono::milliseconds busy_timeout{5000};  // sqlite3_busy_timeout and the wait for a free
                                                 // pooled connection (and for the writer slot)
  // How long claimed outbox rows stay claimed after ClaimPending or RenewClaims.
  std::chrono::milliseconds outbox_claim_ttl{3000};
};

}  // namespace docgate
