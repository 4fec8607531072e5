#pragma once

// HAProxy (Debian's haproxy) in front of docgate instances, as a child process of the test, with
// the configuration docs/runbook.md "Several instances" recommends: round robin, a health check
// on /readyz every 200 ms, and layer-7 retries on another instance when one fails before
// answering (safe for docgate because every mutation a client retries carries an
// Idempotency-Key). Killed (SIGKILL) when destroyed.

#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/child_process.h"
#include "support/temp_dir.h"

namespace docgate {

class HaproxyProcess {
 public:
  // Listens on 127.0.0.1:`port` and balances over the instances on `backends` (127.0.0.1 ports).
  HaproxyProcess(std::uint16_t port, const std::vector<std::uint16_t>& backends) {
    const std::string config = (dir_.path() / "haproxy.cfg").string();
    std::ofstream out(config);
    out << "global\n"
           "  maxconn 512\n"
           "defaults\n"
           "  mode http\n"
           "  timeout connect 1s\n"
           "  timeout client 30s\n"
           "  timeout server 30s\n"
           "  retries 3\n"
           "  option redispatch 1\n"
           "  retry-on conn-failure empty-response response-timeout\n"
           "frontend docgate\n"
           "  bind 127.0.0.1:"
        << port
        << "\n"
           "  default_backend instances\n"
           "backend instances\n"
           "  balance roundrobin\n"
           "  option httpchk GET /readyz\n"
           "  http-check expect status 200\n"
           "  default-server inter 200ms fall 2 rise 2\n";
    for (std::size_t i = 0; i < backends.size(); ++i) {
      out << "  server i" << i << " 127.0.0.1:" << backends[i] << " check\n";
    }
    out.close();
    pid_ = SpawnFromPath({"haproxy", "-f", config, "-db"});
  }
  ~HaproxyProcess() { KillAndReap(pid_); }
  HaproxyProcess(const HaproxyProcess&) = delete;
  HaproxyProcess& operator=(const HaproxyProcess&) = delete;

 private:
  TempDir dir_;
  pid_t pid_ = 0;
};

}  // namespace docgate
