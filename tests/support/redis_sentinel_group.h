#pragma once

// A Redis master, one replica and three Sentinels (quorum 2) as child processes of the test, on
// free ports in a temporary directory, for the tests that kill the master and watch Sentinel fail
// over. Debian's redis-server runs both roles (redis-server <conf> --sentinel). Everything is
// SIGKILLed when the group is destroyed. Options make the servers and the Sentinels require AUTH,
// each with passwords of their own, for the tests of docgate's credentials.

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "adapters/redis/redis_connection.h"
#include "support/child_process.h"
#include "support/scratch_redis.h"
#include "support/tcp_proxy.h"
#include "support/temp_dir.h"

namespace docgate {

class RedisSentinelGroup {
 public:
  static constexpr const char* kMasterName = "docgate-test";

  struct Options {
    // requirepass of the master and the replica (also the replica's masterauth and the
    // Sentinels' auth-pass); empty: none.
    std::string master_password;
    // requirepass of the Sentinels, the default user's password (also their sentinel-pass among
    // themselves); empty: none.
    std::string sentinel_password;
    // With a password: an ACL user of every Sentinel (+@all) besides the default one.
    std::string sentinel_acl_user;
    std::string sentinel_acl_password;
    // Wait until every Sentinel knows the replica and the two others, which a failover needs
    // (seconds: they meet through hello messages); false: only until each answers.
    bool ready_for_failover = true;
  };

  // Starts the servers and waits until the replica follows the master and the Sentinels are
  // ready (see Options), within `limit`. Throws std::runtime_error when that does not happen.
  explicit RedisSentinelGroup(std::chrono::milliseconds limit = std::chrono::seconds(30))
      : RedisSentinelGroup(Options{}, limit) {}
  explicit RedisSentinelGroup(Options options,
                              std::chrono::milliseconds limit = std::chrono::seconds(30))
      : options_(std::move(options)) {
    std::vector<std::string> auth;
    if (!options_.master_password.empty()) {
      auth = {"--requirepass", options_.master_password, "--masterauth", options_.master_password};
    }
    // The replica's full sync starts at once, not after the default 5 s wait for more replicas.
    std::vector<std::string> master_args = {"--repl-diskless-sync-delay", "0"};
    master_args.insert(master_args.end(), auth.begin(), auth.end());
    const int master = Start("master", master_args);
    auth.insert(auth.end(), {"--replicaof", "127.0.0.1", std::to_string(master)});
    const int replica = Start("replica", auth);
    servers_ = {master, replica};
    Await(limit, "the replica to follow the master", [&] {
      return Ask(replica, {"INFO", "replication"}).text.find("master_link_status:up") !=
             std::string::npos;
    });
    for (int i = 0; i < 3; ++i) sentinels_.push_back(StartSentinel(i, master));
    if (!options_.ready_for_failover) return;
    Await(limit, "the Sentinels to know each other and the replica", [&] {
      for (const int sentinel : sentinels_) {
        if (Ask(sentinel, {"SENTINEL", "sentinels", kMasterName}).elements.size() != 2 ||
            Ask(sentinel, {"SENTINEL", "replicas", kMasterName}).elements.size() != 1) {
          return false;
        }
      }
      return true;
    });
  }
  ~RedisSentinelGroup() {
    for (const auto& [port, pid] : sentinel_pids_) KillAndReap(pid);
  }
  RedisSentinelGroup(const RedisSentinelGroup&) = delete;
  RedisSentinelGroup& operator=(const RedisSentinelGroup&) = delete;

  // redis+sentinel://127.0.0.1:<s1>,...,127.0.0.1:<s3>/docgate-test, after `extra` Sentinels
  // (e.g. one that is down).
  std::string Url(const std::vector<std::string>& extra = {}) const {
    return UrlWith("", "", extra);
  }
  // Url(extra) with `userinfo` (the master's "user:password@") before the Sentinels and `query`
  // ("?sentinel_password=...") after the master's name.
  std::string UrlWith(const std::string& userinfo, const std::string& query,
                      const std::vector<std::string>& extra = {}) const {
    std::string hosts;
    for (const auto& host : extra) hosts += host + ",";
    for (std::size_t i = 0; i < sentinels_.size(); ++i) {
      hosts += (i == 0 ? "" : ",") + std::string("127.0.0.1:") + std::to_string(sentinels_[i]);
    }
    return "redis+sentinel://" + userinfo + hosts + "/" + kMasterName + query;
  }

  // One command to a server or Sentinel of the group, AUTHed with the group's password for it.
  // Throws RedisError.
  RedisReply Ask(int port, const std::vector<std::string_view>& args) const {
    const bool sentinel = std::find(sentinels_.begin(), sentinels_.end(), port) != sentinels_.end();
    return AskRedis(port, args, sentinel ? options_.sentinel_password : options_.master_password);
  }
  const std::vector<int>& SentinelPorts() const { return sentinels_; }

  // The master's port as the first Sentinel that answers says.
  int MasterPort() {
    for (const int sentinel : sentinels_) {
      try {
        const RedisReply reply =
            Ask(sentinel, {"SENTINEL", "get-master-addr-by-name", kMasterName});
        if (reply.elements.size() == 2) return std::stoi(reply.elements[1].text);
      } catch (const RedisError&) {
        // that Sentinel is down; ask the next
      }
    }
    throw std::runtime_error("no Sentinel names the master");
  }
  int OriginalMasterPort() const { return servers_[0]; }

  // SENTINEL FAILOVER: a Sentinel promotes the replica and turns the master into its replica,
  // both alive. Throws std::runtime_error when the Sentinel refuses.
  void ManualFailover() {
    const RedisReply answer = Ask(sentinels_.front(), {"SENTINEL", "FAILOVER", kMasterName});
    if (answer.IsError()) throw std::runtime_error("SENTINEL FAILOVER: " + answer.text);
  }

  // SIGKILLs the server on `port` (a master or the replica).
  void Kill(int port) {
    if (const auto it = servers_by_port_.find(port); it != servers_by_port_.end())
      it->second->Kill();
  }

 private:
  static void Await(std::chrono::milliseconds limit, const std::string& what,
                    const std::function<bool()>& done) {
    if (!WithinRedis(limit, done)) throw std::runtime_error("timed out waiting for " + what);
  }

  // A redis-server with `args` in a directory of its own; returns its port once it answers PING.
  int Start(const std::string& name, const std::vector<std::string>& args) {
    auto server = std::make_unique<ScratchRedis>(dir_.path() / name, args);
    const int port = server->port();
    servers_by_port_[port] = std::move(server);
    return port;
  }

  // A Sentinel watching the master on `master`: down after 500 ms without an answer, a failover
  // allowed every 3 s. Sentinel rewrites its configuration file, so each has its own.
  int StartSentinel(int index, int master) {
    const int port = ClosedPort();
    const auto dir = dir_.path() / ("sentinel" + std::to_string(index));
    std::filesystem::create_directories(dir);
    const std::string conf = (dir / "sentinel.conf").string();
    std::ofstream file(conf);
    file << "port " << port << "\nbind 127.0.0.1\ndir " << dir.string() << "\nlogfile "
         << (dir / "sentinel.log").string() << "\nsentinel monitor " << kMasterName << " 127.0.0.1 "
         << master << " 2\nsentinel down-after-milliseconds " << kMasterName
         << " 500\nsentinel failover-timeout " << kMasterName << " 3000\n";
    if (!options_.master_password.empty()) {
      file << "sentinel auth-pass " << kMasterName << " " << options_.master_password << "\n";
    }
    if (!options_.sentinel_password.empty()) {
      file << "requirepass " << options_.sentinel_password << "\nsentinel sentinel-pass "
           << options_.sentinel_password << "\n";
    }
    if (!options_.sentinel_acl_user.empty()) {
      file << "user " << options_.sentinel_acl_user << " on >" << options_.sentinel_acl_password
           << " ~* &* +@all\n";
    }
    file.close();
    sentinel_pids_[port] = SpawnFromPath({"redis-server", conf, "--sentinel"});
    Await(std::chrono::seconds(10), "a Sentinel to answer", [&] { return AnswersPing(port); });
    return port;
  }

  const Options options_;
  TempDir dir_;
  std::map<int, std::unique_ptr<ScratchRedis>> servers_by_port_;
  std::map<int, pid_t> sentinel_pids_;  // by port
  std::vector<int> servers_;            // master, replica (as started)
  std::vector<int> sentinels_;
};

}  // namespace docgate
