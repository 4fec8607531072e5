#pragma once

// HAProxy (Debian's haproxy) in front of docgate instances, as a child process of the test, running
// the project's own configuration, deploy/haproxy.cfg (docs/runbook.md "Several instances"): round
// robin, a health check on /readyz every 200 ms, layer-7 retries on another instance when one fails
// before answering, and the balancer's own 503 in problem+json with Retry-After. Killed (SIGKILL)
// when destroyed. Where deploy/haproxy.cfg is: the DOCGATE_HAPROXY_CONFIG the build defines.

#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/child_process.h"
#include "support/temp_dir.h"
#include "support/build_paths.h"

namespace docgate {

class HaproxyProcess {
 public:
  // Listens on 127.0.0.1:`port` and balances over the instances on `backends` (127.0.0.1 ports).
  HaproxyProcess(std::uint16_t port, const std::vector<std::uint16_t>& backends) {
    const std::string path = testing::BesideExecutable(DOCGATE_HAPROXY_CONFIG);
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::ostringstream text;
    text << in.rdbuf();
    std::string config_text = text.str();
    const std::string bind = "${DOCGATE_LB_BIND}";
    const auto at = config_text.find(bind);
    if (at == std::string::npos) throw std::runtime_error("no " + bind + " in the configuration");
    config_text.replace(at, bind.size(), "127.0.0.1:" + std::to_string(port));
    const std::string config = (dir_.path() / "haproxy.cfg").string();
    std::ofstream out(config);
    out << config_text;
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
