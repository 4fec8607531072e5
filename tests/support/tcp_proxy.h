#pragma once

// A network the test can cut between a client under test and a TCP server (PostgreSQL in practice),
// plus the few loopback socket helpers it is built from. Header-only, POSIX sockets, test use only.
//
// TcpProxy forwards every connection made to 127.0.0.1:port() to 127.0.0.1:<upstream port>, one
// thread polling every link. Stop() is an outage as the client sees a server that went away: the
// port stops listening (new connections are refused) and every forwarded connection is closed on
// both sides, so the server also sees its clients go (and rolls their open transactions back).
// Start() opens the same port again and forwards new connections; the links closed by Stop() stay
// closed. Hold() is a network that stalls instead: nothing is closed, but no byte passes either way
// (what is sent waits in the sockets) until Release(). DropAnswerTo(marker) loses one answer: the
// server gets the request and answers, the client sees its connection break instead. Stop(),
// Start(), Hold() and Release() return once the change is in effect. Not thread-safe: one thread
// (the test's) drives it. The upstream is never touched otherwise. Every descriptor is
// close-on-exec, so a child process the test starts holds none of them open.

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace docgate {

// A socket listening on 127.0.0.1:port (0: a free port) with the given backlog. Throws
// std::runtime_error when it cannot.
inline int ListeningSocket(int port, int backlog) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("socket() failed");
  const int on = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(fd, backlog) != 0) {
    ::close(fd);
    throw std::runtime_error("cannot listen on 127.0.0.1:" + std::to_string(port));
  }
  return fd;
}

// The local port a socket is bound to.
inline int PortOf(int fd) {
  sockaddr_in address{};
  socklen_t length = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  return ntohs(address.sin_port);
}

// A port on which nothing listens (bound, then released).
inline int ClosedPort() {
  const int fd = ListeningSocket(0, 1);
  const int port = PortOf(fd);
  ::close(fd);
  return port;
}

// A connected socket to 127.0.0.1:port, or -1 when the connection is refused.
inline int ConnectTo(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Sends all `size` bytes (blocking); false once the peer is gone.
inline bool SendAll(int fd, const char* data, ssize_t size) {
  while (size > 0) {
    const ssize_t sent = ::send(fd, data, static_cast<std::size_t>(size), MSG_NOSIGNAL);
    if (sent <= 0) return false;
    data += sent;
    size -= sent;
  }
  return true;
}

// The port of a URL's authority ("postgresql://u@127.0.0.1:5433/db" -> 5433); 5432, PostgreSQL's
// default, when it names none.
inline int PortOfUrl(const std::string& url) {
  const auto authority = url.find("://") + 3;
  const auto end = url.find_first_of("/?", authority);
  const auto colon = url.rfind(':', end);
  if (colon == std::string::npos || colon < authority) return 5432;
  return std::stoi(url.substr(colon + 1, end - colon - 1));
}

class TcpProxy {
 public:
  // Starts forwarding at once, on a free port. Throws std::runtime_error when it cannot listen.
  explicit TcpProxy(int upstream_port) : upstream_port_(upstream_port) { Start(); }
  TcpProxy(const TcpProxy&) = delete;
  TcpProxy& operator=(const TcpProxy&) = delete;
  ~TcpProxy() { Stop(); }

  // The port clients connect to; the same across Stop() and Start().
  int port() const { return port_; }

  // Listens (again) and forwards new connections. No-op while running. Throws std::runtime_error
  // when the port cannot be bound.
  void Start() {
    if (thread_.joinable()) return;
    listener_ = ListeningSocket(port_, 64);
    port_ = PortOf(listener_);
    if (::pipe2(wake_, O_CLOEXEC) != 0) {
      ::close(listener_);
      throw std::runtime_error("pipe failed");
    }
    thread_ = std::thread([this] { Loop(); });
  }

  // Closes the port and every forwarded connection; returns when they are closed. No-op while
  // stopped.
  void Stop() {
    if (!thread_.joinable()) return;
    ::close(wake_[1]);  // the loop sees the pipe's end and closes everything
    thread_.join();
    ::close(wake_[0]);
  }

  // Stops forwarding, closing nothing; new connections are accepted and held too.
  void Hold() { SetHeld(true); }
  // Forwards again, what waited first.
  void Release() { SetHeld(false); }

  // Arms a one-shot fault: the next bytes a client sends that contain `marker` (a statement's text,
  // or a bound parameter's value) are forwarded, and the first answer the server sends back on
  // that connection is dropped and the connection closed on both sides. The server has then run
  // the request to its end (in autocommit, committed it) while the client sees a lost connection.
  void DropAnswerTo(std::string marker) {
    std::lock_guard lock(marker_mutex_);
    marker_ = std::move(marker);
    dropped_ = false;
  }
  // True once the armed fault has fired.
  bool answer_dropped() const { return dropped_; }

 private:
  struct Link {
    int client;
    int upstream;
    bool drop_answer = false;  // DropAnswerTo's marker went through: the next answer is lost
  };

  void SetHeld(bool held) {
    std::unique_lock lock(mutex_);
    held_ = held;
    const std::uint64_t request = ++requested_;
    const char nudge = 'h';
    if (::write(wake_[1], &nudge, 1) != 1) throw std::runtime_error("cannot nudge the proxy");
    applied_.wait(lock, [&] { return seen_ >= request; });
  }

  void Loop() {
    std::vector<Link> links;
    for (;;) {
      bool held = false;
      {
        std::lock_guard lock(mutex_);
        held = held_;
        seen_ = requested_;
      }
      applied_.notify_all();
      std::vector<pollfd> fds{{wake_[0], POLLIN, 0}, {listener_, POLLIN, 0}};
      // Held links are not polled: nothing is read, and a closed side goes unnoticed until Release.
      const std::vector<Link> polled = held ? std::vector<Link>{} : links;
      for (const Link& link : polled) {
        fds.push_back({link.client, POLLIN, 0});
        fds.push_back({link.upstream, POLLIN, 0});
      }
      if (::poll(fds.data(), fds.size(), -1) < 0) continue;
      if (fds[0].revents != 0) {
        char nudges[64];
        if (::read(wake_[0], nudges, sizeof nudges) <= 0) break;  // Stop closed the pipe
        continue;
      }
      // fds covers the links as they were before poll; a link accepted below joins next round.
      std::vector<Link> alive;
      if (held) alive = links;
      for (std::size_t i = 0; i < polled.size(); ++i) {
        Link link = polled[i];
        const bool open = FromClient(link, fds[2 + 2 * i].revents) &&
                          (fds[3 + 2 * i].revents == 0 ||
                           (!link.drop_answer && Pump(link.upstream, link.client)));
        if (open) {
          alive.push_back(link);
        } else {
          if (link.drop_answer) dropped_ = true;
          ::close(link.client);
          ::close(link.upstream);
        }
      }
      if (fds[1].revents & POLLIN) {
        const int client = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
        const int upstream = client >= 0 ? ConnectTo(upstream_port_) : -1;
        if (upstream >= 0) {
          alive.push_back(Link{client, upstream});
        } else if (client >= 0) {
          ::close(client);
        }
      }
      links = std::move(alive);
    }
    for (const Link& link : links) {
      ::close(link.client);
      ::close(link.upstream);
    }
    ::close(listener_);
  }

  // Forwards what the client sent, marking the link when it carries the armed marker (disarming
  // it); false once either side is closed.
  bool FromClient(Link& link, short revents) {
    if (revents == 0) return true;
    char buffer[65536];
    const ssize_t got = ::recv(link.client, buffer, sizeof buffer, 0);
    if (got <= 0) return false;
    {
      std::lock_guard lock(marker_mutex_);
      if (!marker_.empty() &&
          std::string_view(buffer, static_cast<std::size_t>(got)).find(marker_) !=
              std::string_view::npos) {
        link.drop_answer = true;
        marker_.clear();
      }
    }
    return SendAll(link.upstream, buffer, got);
  }

  // Forwards what `from` has to `to`; false once either side is closed.
  static bool Pump(int from, int to) {
    char buffer[65536];
    const ssize_t got = ::recv(from, buffer, sizeof buffer, 0);
    return got > 0 && SendAll(to, buffer, got);
  }

  int upstream_port_;
  std::mutex marker_mutex_;
  std::string marker_;  // armed by DropAnswerTo; empty when none is
  std::atomic<bool> dropped_{false};
  int port_ = 0;
  int listener_ = -1;
  int wake_[2] = {-1, -1};
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable applied_;
  bool held_ = false;            // guarded by mutex_
  std::uint64_t requested_ = 0;  // Hold/Release calls so far (mutex_)
  std::uint64_t seen_ = 0;       // of which the loop has applied (mutex_)
};

}  // namespace docgate
