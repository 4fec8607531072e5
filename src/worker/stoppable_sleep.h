#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stop_token>

namespace docgate {

// Waits `duration`, or less when `stop` is requested meanwhile (the worker loops' pause between
// rounds and after failures). Returns false when the wait ended because of the stop request.
inline bool SleepUnlessStopped(std::stop_token stop, std::chrono::milliseconds duration) {
  std::mutex mutex;
  std::condition_variable_any never_notified;
  std::unique_lock lock(mutex);
  never_notified.wait_for(lock, stop, duration, [] { return false; });
  return !stop.stop_requested();
}

}  // namespace docgate
