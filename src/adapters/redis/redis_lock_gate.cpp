#include "adapters/redis/redis_lock_gate.h"

#include <openssl/sha.h>
#include <spdlog/spdlog.h>

#include <boost/asio/ssl/context.hpp>

#include <cstdio>
#include <utility>

#include "adapters/redis/redis_connection.h"

namespace docgate {
namespace {

// Returns {1, 0} when the key was set for us, {0, PTTL} when someone holds it.
constexpr std::string_view kAcquireScript = R"lua(
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return {1, 0}
end
return {0, redis.call('PTTL', KEYS[1])}
)lua";

// Deletes the key only while it still holds our token: 1 deleted, 0 not ours (or gone).
constexpr std::string_view kReleaseScript = R"lua(
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
)lua";

std::string Sha1Hex(std::string_view text) {
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  std::string hex;
  char byte[3];
  for (const unsigned char d : digest) {
    std::snprintf(byte, sizeof byte, "%02x", d);
    hex += byte;
  }
  return hex;
}

std::unique_ptr<boost::asio::ssl::context> MakeTlsContext(const RedisConfig& config) {
  auto context = std::make_unique<boost::asio::ssl::context>(boost::asio::ssl::context::tls_client);
  boost::system::error_code ec;
  if (config.ca_file.empty()) {
    context->set_default_verify_paths(ec);
  } else {
    context->load_verify_file(config.ca_file, ec);
  }
  if (ec) {
    throw std::invalid_argument("cannot load the Redis CA certificates " + config.ca_file + ": " +
                                ec.message());
  }
  return context;
}

// The host and port only: the URL may carry a password.
std::string Where(const RedisEndpoint& endpoint) {
  return std::string(endpoint.tls ? "rediss://" : "redis://") + endpoint.host + ":" + endpoint.port;
}

}  // namespace

RedisLockGate::RedisLockGate(RedisConfig config, RandomSource& random, std::string key_prefix)
    : config_(std::move(config)),
      endpoint_(ParseRedisUrl(config_.url)),
      random_(random),
      prefix_(std::move(key_prefix)),
      tls_(endpoint_.tls ? MakeTlsContext(config_) : nullptr),
      acquire_{kAcquireScript, Sha1Hex(kAcquireScript)},
      release_{kReleaseScript, Sha1Hex(kReleaseScript)},
      breaker_(config_.breaker_initial, config_.breaker_max) {
  try {
    auto connection = std::make_unique<RedisConnection>(endpoint_, tls_.get(),
                                                        config_.connect_timeout,
                                                        config_.connect_timeout);
    const RedisReply pong = connection->Command({"PING"});
    if (pong.IsError()) throw RedisError("PING: " + pong.text);
    idle_.push_back(std::move(connection));
    spdlog::info("lock gate: Redis at {}", Where(endpoint_));
  } catch (const RedisError& e) {
    ++failures_;
    breaker_.Failed(CircuitBreaker::Clock::now());
    spdlog::warn("lock gate: Redis at {} is unreachable ({}); starting degraded, requests go "
                 "through under the database locks until it answers",
                 Where(endpoint_), e.what());
  }
}

RedisLockGate::~RedisLockGate() = default;

Acquisition RedisLockGate::Acquire(const std::string& key, std::chrono::milliseconds ttl) {
  if (!breaker_.Allow(CircuitBreaker::Clock::now())) return {};
  std::string token = random_.Token128();
  try {
    const std::string ttl_text = std::to_string(ttl.count());
    const RedisReply reply = RunScript(acquire_, prefix_ + key, {token, ttl_text});
    if (reply.type != RedisReply::Type::kArray || reply.elements.size() != 2 ||
        reply.elements[0].type != RedisReply::Type::kInteger ||
        reply.elements[1].type != RedisReply::Type::kInteger) {
      throw RedisError("unexpected reply to the acquire script");
    }
    RecordSuccess();
    if (reply.elements[0].integer == 1) return {AcquireOutcome::kAcquired, std::move(token), {}};
    // PTTL is -1 for a key without expiry (set by someone else): say the full TTL.
    const long long pttl = reply.elements[1].integer;
    return {AcquireOutcome::kBusy, {}, pttl >= 0 ? std::chrono::milliseconds{pttl} : ttl};
  } catch (const RedisError& e) {
    RecordFailure("acquire", e.what());
    return {};
  }
}

ReleaseOutcome RedisLockGate::Release(const std::string& key, const std::string& token) {
  if (!breaker_.Allow(CircuitBreaker::Clock::now())) return ReleaseOutcome::kBackendFailed;
  try {
    const RedisReply reply = RunScript(release_, prefix_ + key, {token});
    if (reply.type != RedisReply::Type::kInteger) {
      throw RedisError("unexpected reply to the release script");
    }
    RecordSuccess();
    if (reply.integer == 1) return ReleaseOutcome::kReleased;
    ++lost_leases_;
    spdlog::info("lock gate: {}{} was no longer ours at release (lease expired)", prefix_, key);
    return ReleaseOutcome::kNotOwner;
  } catch (const RedisError& e) {
    RecordFailure("release", e.what());
    return ReleaseOutcome::kBackendFailed;
  }
}

std::string RedisLockGate::State() const { return breaker_.closed() ? "ok" : "degraded"; }

RedisReply RedisLockGate::RunScript(const Script& script, const std::string& key,
                                    const std::vector<std::string_view>& args) {
  std::vector<std::string_view> command{"EVALSHA", script.sha1, "1", key};
  command.insert(command.end(), args.begin(), args.end());
  RedisReply reply = Execute(command);
  if (reply.IsError() && reply.text.starts_with("NOSCRIPT")) {
    ++script_reloads_;
    command[0] = "EVAL";
    command[1] = script.body;
    reply = Execute(command);
  }
  if (reply.IsError()) throw RedisError("Redis answered " + reply.text);
  return reply;
}

RedisReply RedisLockGate::Execute(const std::vector<std::string_view>& args) {
  std::unique_ptr<RedisConnection> connection;
  {
    std::lock_guard lock(pool_mutex_);
    if (!idle_.empty()) {
      connection = std::move(idle_.back());
      idle_.pop_back();
    }
  }
  if (!connection) {
    connection = std::make_unique<RedisConnection>(endpoint_, tls_.get(), config_.connect_timeout,
                                                   config_.command_timeout);
  }
  RedisReply reply = connection->Command(args);
  std::lock_guard lock(pool_mutex_);
  if (idle_.size() < static_cast<std::size_t>(config_.pool_size)) idle_.push_back(std::move(connection));
  return reply;
}

void RedisLockGate::RecordFailure(std::string_view what, std::string_view why) {
  ++failures_;
  {
    // The idle connections most likely broke with this one (server restart, network cut).
    std::lock_guard lock(pool_mutex_);
    idle_.clear();
  }
  if (breaker_.Failed(CircuitBreaker::Clock::now())) {
    spdlog::warn("lock gate: Redis {} failed ({}); degraded: requests go through under the "
                 "database locks until Redis answers again",
                 what, why);
  }
}

void RedisLockGate::RecordSuccess() {
  if (breaker_.Succeeded()) spdlog::info("lock gate: Redis answers again; the gate is back");
}

}  // namespace docgate
