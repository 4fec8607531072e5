#include "adapters/http/work_lane.h"

#include <pthread.h>

#include <algorithm>

namespace docgate {

void NameThisThread(const char* name) { pthread_setname_np(pthread_self(), name); }

WorkLane::WorkLane(int threads, std::size_t limit)
    : capacity_(static_cast<std::size_t>(std::max(1, threads)) + limit) {
  for (int i = 0; i < std::max(1, threads); ++i) {
    threads_.emplace_back([this] {
      NameThisThread("http-worker");
      Work();
    });
  }
}

std::optional<WorkLane::Ticket> WorkLane::TryPost(Job job) {
  Ticket ticket = 0;
  {
    std::lock_guard lock(mutex_);
    if (closed_ || waiting_.size() + running_ >= capacity_) return std::nullopt;
    ticket = next_ticket_++;
    waiting_.emplace(ticket, std::move(job));
  }
  ready_.notify_one();
  return ticket;
}

bool WorkLane::Withdraw(Ticket ticket) {
  std::lock_guard lock(mutex_);
  return waiting_.erase(ticket) == 1;
}

std::pair<std::size_t, std::size_t> WorkLane::Load() {
  std::lock_guard lock(mutex_);
  return {running_, waiting_.size()};
}

void WorkLane::Join() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  ready_.notify_all();
  for (auto& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
}

void WorkLane::Work() {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [this] { return closed_ || !waiting_.empty(); });
      if (waiting_.empty()) return;
      job = std::move(waiting_.begin()->second);
      waiting_.erase(waiting_.begin());
      ++running_;
    }
    job();
    std::lock_guard lock(mutex_);
    --running_;
  }
}

}  // namespace docgate
