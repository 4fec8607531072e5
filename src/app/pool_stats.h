#pragma once

#include <cstddef>

namespace docgate {

// A database connection pool's occupancy at one instant, for metrics. The stores' pools report it
// under their own lock, so the three numbers are consistent with each other.
struct PoolStats {
  std::size_t size = 0;     // the most connections the pool holds (DOCGATE_DB_POOL_SIZE)
  std::size_t in_use = 0;   // lent out to a caller (or being opened for one)
  std::size_t waiting = 0;  // callers waiting for a connection (SQLite: or for the writer slot)
};

}  // namespace docgate
