#pragma once

// A redis-server of the test's own, as its child: for tests that need a server to themselves
// (SCRIPT FLUSH empties the script cache of every client of a server) and for the Sentinel group.

#include <chrono>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "adapters/redis/redis_connection.h"
#include "support/child_process.h"
#include "support/tcp_proxy.h"
#include "support/temp_dir.h"

namespace docgate {

// One command to the server or Sentinel on 127.0.0.1:`port`, on a fresh connection that first
// AUTHs with `password` when one is given. Throws RedisError.
inline RedisReply AskRedis(int port, const std::vector<std::string_view>& args,
                           const std::string& password = "") {
  using namespace std::chrono_literals;
  RedisEndpoint endpoint;
  endpoint.host = "127.0.0.1";
  endpoint.port = std::to_string(port);
  endpoint.password = password;
  return RedisConnection(endpoint, nullptr, 2s, 2s).Command(args);
}

// Whether the server or Sentinel on `port` answers: PONG, or NOAUTH when it requires a password.
inline bool AnswersPing(int port) {
  const RedisReply reply = AskRedis(port, {"PING"});
  return reply.text == "PONG" || reply.text.starts_with("NOAUTH");
}

// Polls `done` (a RedisError counts as not yet) every 50 ms until it holds, for at most `limit`.
inline bool WithinRedis(std::chrono::milliseconds limit, const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    try {
      if (done()) return true;
    } catch (const RedisError&) {
      // not up yet, or just killed
    }
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// redis-server on a free port of 127.0.0.1, without persistence, its files in `dir` (created), with
// `args` after docgate's; SIGKILLed when destroyed.
class ScratchRedis {
 public:
  // Returns once the server answers PING (NOAUTH with --requirepass); throws std::runtime_error
  // when it does not within 10 s.
  explicit ScratchRedis(const std::filesystem::path& dir, const std::vector<std::string>& args = {})
      : port_(ClosedPort()) {
    std::filesystem::create_directories(dir);
    std::vector<std::string> argv = {"redis-server",
                                     "--port",
                                     std::to_string(port_),
                                     "--bind",
                                     "127.0.0.1",
                                     "--save",
                                     "",
                                     "--appendonly",
                                     "no",
                                     "--dir",
                                     dir.string(),
                                     "--logfile",
                                     (dir / "redis.log").string()};
    argv.insert(argv.end(), args.begin(), args.end());
    pid_ = SpawnFromPath(argv);
    if (!WithinRedis(std::chrono::seconds(10), [&] { return AnswersPing(port_); })) {
      Kill();
      throw std::runtime_error("redis-server on port " + std::to_string(port_) +
                               " did not answer within 10 s (see " + (dir / "redis.log").string() +
                               ")");
    }
  }
  ~ScratchRedis() { Kill(); }
  ScratchRedis(const ScratchRedis&) = delete;
  ScratchRedis& operator=(const ScratchRedis&) = delete;

  int port() const { return port_; }
  std::string Url() const { return "redis://127.0.0.1:" + std::to_string(port_) + "/0"; }

  // SIGKILLs the server (once).
  void Kill() {
    if (pid_ > 0) KillAndReap(pid_);
    pid_ = 0;
  }

 private:
  int port_;
  pid_t pid_ = 0;
};

// A ScratchRedis in a temporary directory of its own.
class PrivateRedis {
 public:
  PrivateRedis() : server_(dir_.path()) {}
  std::string Url() const { return server_.Url(); }

 private:
  TempDir dir_;
  ScratchRedis server_;
};

}  // namespace docgate
