#pragma once

// Starting and killing the servers some tests run as their own children (redis-server, haproxy).

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace docgate {

// Starts the program argv[0], found on PATH, with `argv` and this process's environment; returns
// its pid. Throws std::runtime_error when it cannot start.
inline pid_t SpawnFromPath(std::vector<std::string> argv) {
  std::vector<char*> args;
  for (auto& arg : argv) args.push_back(arg.data());
  args.push_back(nullptr);
  pid_t pid = 0;
  if (::posix_spawnp(&pid, args[0], nullptr, nullptr, args.data(), environ) != 0) {
    throw std::runtime_error("cannot start " + argv[0] + " (is Debian's package installed?)");
  }
  return pid;
}

// SIGKILLs the child `pid` and waits for it.
inline void KillAndReap(pid_t pid) {
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
}

}  // namespace docgate
