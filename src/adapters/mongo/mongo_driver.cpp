#include "adapters/mongo/mongo_driver.h"

#include <mongoc/mongoc.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string_view>

namespace docgate {
namespace {

// Why holds rather than a guard per store that cleans up when it goes: mongoc_init and
// mongoc_cleanup each do their work once per process (bson_once), so a cleanup when the last store
// goes would leave the driver dead for the next store made (tests make many). Why not a static
// object whose destructor cleans up: at exit a store may still be alive (std::exit with a store
// owned by main's stack), and its pool's monitoring threads would use the driver after cleanup;
// the count skips the cleanup then and leaves the memory to the OS. Both are constant-initialized
// and trivially destructible: no static destruction order to get wrong.
std::atomic<int> holds{0};
std::once_flag initialized;

// libmongoc's own handler writes every level to stderr, the monitor's chatter about an unreachable
// server included; what matters reaches docgate's log, and failures reach callers as exceptions.
void ForwardLog(mongoc_log_level_t level, const char* domain, const char* message, void*) {
  if (level > MONGOC_LOG_LEVEL_WARNING) return;
  std::string_view text(message);
  while (text.ends_with('\n')) text.remove_suffix(1);
  spdlog::warn("libmongoc ({}): {}", domain, text);
}

void CleanupAtExit() {
  if (holds.load() == 0) mongoc_cleanup();
}

}  // namespace

MongoDriver::MongoDriver() {
  std::call_once(initialized, [] {
    mongoc_log_set_handler(&ForwardLog, nullptr);
    mongoc_init();
    std::atexit(CleanupAtExit);
  });
  ++holds;
}

MongoDriver::~MongoDriver() { --holds; }

}  // namespace docgate
