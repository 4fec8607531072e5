#include "adapters/pg/pg_outbox_listener.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <pqxx/pqxx>
#include <string>

#include "adapters/pg/pg_connection_pool.h"

namespace docgate {
namespace {

constexpr char kChannel[] = "docgate_outbox";
// How long one wait for a notification blocks: bounds how long a stop request waits.
constexpr long kWaitMicros = 200'000;
constexpr std::chrono::milliseconds kInitialBackoff{250};
constexpr std::chrono::milliseconds kMaxBackoff{10000};

class WakeOnNotify final : public pqxx::notification_receiver {
 public:
  WakeOnNotify(pqxx::connection_base& connection, OutboxWakeup& wakeup)
      : pqxx::notification_receiver(connection, kChannel), wakeup_(wakeup) {}
  void operator()(const std::string&, int) override { wakeup_.Wake(); }

 private:
  OutboxWakeup& wakeup_;
};

PgConfig OneConnection(PgConfig config) {
  config.pool_size = 1;
  return config;
}

// Sleeps up to `duration`, returning early when `stop` is requested.
void SleepFor(std::stop_token& stop, std::chrono::milliseconds duration) {
  std::mutex mutex;
  std::condition_variable_any never;
  std::unique_lock lock(mutex);
  never.wait_for(lock, stop, duration, [] { return false; });
}

}  // namespace

PgOutboxListener::PgOutboxListener(const PgConfig& config, OutboxWakeup& wakeup)
    : wakeup_(wakeup),
      pool_(std::make_unique<PgConnectionPool>(OneConnection(config), nullptr)),
      thread_([this](std::stop_token stop) { Run(stop); }) {}

PgOutboxListener::~PgOutboxListener() {
  thread_.request_stop();
  if (thread_.joinable()) thread_.join();
}

void PgOutboxListener::Run(std::stop_token stop) {
  auto backoff = kInitialBackoff;
  while (!stop.stop_requested()) {
    try {
      auto lease = pool_->Acquire(kMaxBackoff);
      try {
        WakeOnNotify receiver(lease.connection(), wakeup_);
        lease.connection().get_notifs();  // sends LISTEN
        if (!listening_.exchange(true)) spdlog::info("outbox listener: listening on {}", kChannel);
        backoff = kInitialBackoff;
        wakeup_.Wake();  // anything committed while not listening
        while (!stop.stop_requested()) lease.connection().await_notification(0, kWaitMicros);
      } catch (...) {
        lease.Discard();
        throw;
      }
    } catch (const std::exception& e) {
      if (listening_.exchange(false)) {
        spdlog::warn("outbox listener: connection lost, relays fall back to polling: {}", e.what());
      }
      SleepFor(stop, backoff);
      backoff = std::min(backoff * 2, kMaxBackoff);
    }
  }
}

}  // namespace docgate
