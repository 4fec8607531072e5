#include "adapters/in_process/in_process_lock_gate.h"

#include <iterator>
#include <utility>

namespace docgate {
namespace {
constexpr unsigned kSweepEvery = 256;
}  // namespace

InProcessLockGate::InProcessLockGate(Clock& clock, RandomSource& random, std::string key_prefix)
    : clock_(clock), random_(random), prefix_(std::move(key_prefix)) {}

Acquisition InProcessLockGate::Acquire(const std::string& key, std::chrono::milliseconds ttl) {
  std::string token = random_.Token128();
  const TimePoint now = clock_.Now();
  std::lock_guard lock(mutex_);
  if (++acquisitions_since_sweep_ >= kSweepEvery) SweepExpired(now);
  auto [it, inserted] = entries_.try_emplace(prefix_ + key, Entry{token, now + ttl});
  if (!inserted) {
    if (it->second.expires_at > now) {
      return Acquisition{AcquireOutcome::kBusy, {}, it->second.expires_at - now};
    }
    it->second = Entry{token, now + ttl};
  }
  return Acquisition{AcquireOutcome::kAcquired, std::move(token), {}};
}

ReleaseOutcome InProcessLockGate::Release(const std::string& key, const std::string& token) {
  const TimePoint now = clock_.Now();
  std::lock_guard lock(mutex_);
  auto it = entries_.find(prefix_ + key);
  if (it == entries_.end() || it->second.token != token) return ReleaseOutcome::kNotOwner;
  // An expired key is no longer ours, even if nobody has taken it since: report the lost lease.
  const bool expired = it->second.expires_at <= now;
  entries_.erase(it);
  return expired ? ReleaseOutcome::kNotOwner : ReleaseOutcome::kReleased;
}

std::optional<std::chrono::milliseconds> InProcessLockGate::RemainingTtl(const std::string& key) {
  const TimePoint now = clock_.Now();
  std::lock_guard lock(mutex_);
  auto it = entries_.find(prefix_ + key);
  if (it == entries_.end() || it->second.expires_at <= now) return std::nullopt;
  return it->second.expires_at - now;
}

std::size_t InProcessLockGate::LiveKeys() {
  const TimePoint now = clock_.Now();
  std::lock_guard lock(mutex_);
  SweepExpired(now);
  return entries_.size();
}

void InProcessLockGate::SweepExpired(TimePoint now) {
  acquisitions_since_sweep_ = 0;
  std::erase_if(entries_, [now](const auto& kv) { return kv.second.expires_at <= now; });
}

}  // namespace docgate
