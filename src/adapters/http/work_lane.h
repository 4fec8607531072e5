#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

namespace docgate {

// Names the calling thread (at most 15 bytes), so that `top -H`, gdb and perf tell the server's
// threads apart, and tests can recognise a thread serving a request.
void NameThisThread(const char* name);

// HttpServer's workers: threads running jobs from a bounded FIFO; a job can be withdrawn until a
// thread takes it. The threads are named `http-worker`. Thread-safe.
class WorkLane {
 public:
  using Job = std::function<void()>;
  using Ticket = std::uint64_t;

  // At most `limit` jobs wait while all `threads` (at least 1) are busy.
  WorkLane(int threads, std::size_t limit);
  ~WorkLane() { Join(); }
  WorkLane(const WorkLane&) = delete;
  WorkLane& operator=(const WorkLane&) = delete;

  // The job's ticket; nullopt when the queue is full or the lane joined.
  std::optional<Ticket> TryPost(Job job);
  // Takes a job out of the queue; false when a thread has already taken it (it runs or ran).
  bool Withdraw(Ticket ticket);
  // Jobs running and jobs waiting.
  std::pair<std::size_t, std::size_t> Load();
  // Runs the jobs still waiting, then joins the threads. Not from one of them.
  void Join();

 private:
  void Work();

  const std::size_t capacity_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::map<Ticket, Job> waiting_;  // oldest first
  std::size_t running_ = 0;
  Ticket next_ticket_ = 0;
  bool closed_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace docgate
