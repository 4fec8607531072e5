#pragma once

// The docgate binary (DOCGATE_BINARY, or a path given) as a child process, for the tests and
// benchmarks that kill it, and the small helpers they share.

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "e2e/http_client.h"
#include "support/tcp_proxy.h"
#include "support/build_paths.h"

extern char** environ;

namespace docgate::e2e {

inline std::string RequiredEnv(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') {
    throw std::runtime_error(std::string(name) + " is not set: run `make test`, or `eval \"$(bash "
                             "scripts/services.sh start)\"` first");
  }
  return value;
}

// A prefix no other test (in this process or another) puts in its names.
inline std::string UniquePrefix() {
  static std::atomic<int> counter{0};
  return "t" + std::to_string(::getpid()) + "x" + std::to_string(++counter) + "-";
}

// `docgate <command>` with this process's environment plus `env`. Killed (SIGKILL) when destroyed.
class DocgateProcess {
 public:
#ifdef DOCGATE_BINARY
  explicit DocgateProcess(const std::map<std::string, std::string>& env,
                          const std::string& command = "serve")
      : DocgateProcess(testing::BesideExecutable(DOCGATE_BINARY), env, command) {}
#endif
  // `binary` is the docgate executable to start.
  DocgateProcess(std::string binary, const std::map<std::string, std::string>& env,
                 std::string command = "serve") {
    std::vector<std::string> entries;
    for (char** e = environ; *e != nullptr; ++e) entries.emplace_back(*e);
    for (const auto& [name, value] : env) entries.push_back(name + "=" + value);
    std::vector<char*> envp;
    for (auto& entry : entries) envp.push_back(entry.data());
    envp.push_back(nullptr);
    char* argv[] = {binary.data(), command.data(), nullptr};
    if (::posix_spawn(&pid_, binary.c_str(), nullptr, nullptr, argv, envp.data()) != 0) {
      throw std::runtime_error("cannot start " + binary);
    }
  }
  ~DocgateProcess() {
    if (pid_ > 0) Kill();
  }
  DocgateProcess(const DocgateProcess&) = delete;
  DocgateProcess& operator=(const DocgateProcess&) = delete;

  void Kill() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = 0;
  }
  // SIGTERM, then the exit status (or -1 when it did not exit normally).
  int Terminate() {
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  pid_t pid_ = 0;
};

// A port nothing listens on right now.
inline std::uint16_t FreePort() {
  const int fd = ListeningSocket(0, 1);
  const std::uint16_t port = static_cast<std::uint16_t>(PortOf(fd));
  ::close(fd);
  return port;
}

// Polls `done` every 20 ms until it holds (true) or `limit` ran out (false).
inline bool Within(std::chrono::milliseconds limit, const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

// True once GET /readyz on `port` answers 200, within `limit`.
inline bool ReadyWithin(std::uint16_t port, std::chrono::milliseconds limit) {
  using namespace std::chrono_literals;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    try {
      if (HttpClient(port, 1s).Request(boost::beast::http::verb::get, "/readyz").status() == 200) {
        return true;
      }
    } catch (const std::exception&) {
      // not listening yet
    }
    std::this_thread::sleep_for(50ms);
  }
  return false;
}

}  // namespace docgate::e2e
