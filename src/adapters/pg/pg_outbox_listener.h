#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <stop_token>
#include <thread>

#include "adapters/pg/pg_config.h"
#include "app/ports/outbox_wakeup.h"

namespace docgate {

class PgConnectionPool;

// Turns PostgreSQL's `NOTIFY docgate_outbox`, which kh_outbox's trigger sends at the commit of
// every transaction that appended events (whichever docgate instance committed it), into
// OutboxWakeup::Wake, so every instance's relay wakes for every instance's transitions without
// polling.
//
// Runs on its own thread with its own connection (LISTEN needs a session of its own). When the
// connection fails it reconnects with backoff (250 ms doubling to 10 s) and wakes the relay once
// listening again, because notifications sent in between are lost; until then the relay's idle
// poll is the fallback. Never throws after construction; failures are logged.
class PgOutboxListener {
 public:
  // Starts listening in the background; `wakeup` must outlive the listener.
  PgOutboxListener(const PgConfig& config, OutboxWakeup& wakeup);
  PgOutboxListener(const PgOutboxListener&) = delete;
  PgOutboxListener& operator=(const PgOutboxListener&) = delete;
  // Stops the thread (within about 200 ms) and closes the connection.
  ~PgOutboxListener();

  // True while LISTEN is in effect on a live connection.
  bool listening() const { return listening_.load(); }

 private:
  void Run(std::stop_token stop);

  OutboxWakeup& wakeup_;
  std::unique_ptr<PgConnectionPool> pool_;
  std::atomic<bool> listening_{false};
  std::jthread thread_;  // last: started after everything it uses
};

}  // namespace docgate
