#!/usr/bin/env python3
"""What clients that never finish a request cost the server (issue 36, item 2).

Starts `docgate serve` (SQLite in a temporary directory) from each binary given, and for each:
  1. idle:    opens IDLE connections that send nothing, and holds them;
  2. uploads: on a fresh server, UPLOADS unauthenticated `POST /api/v1/documents` that announce a
              1 MiB body, send UPLOAD_BYTES of it and hold the rest back.
Prints the server's resident memory (VmRSS) before and while each is held, and how many of the
held connections the server had answered or closed by then, then whether `/healthz` answered on
a new connection meanwhile. The binaries run one after the other on the same machine, so compare
the columns side by side, not with another run.

  bench/held_connections.py BINARY [BINARY...]
  IDLE (default 1000), UPLOADS (default 200), UPLOAD_BYTES (default 524288)
"""

import os
import socket
import subprocess
import sys
import tempfile
import time

IDLE = int(os.environ.get("IDLE", "1000"))
UPLOADS = int(os.environ.get("UPLOADS", "200"))
UPLOAD_BYTES = int(os.environ.get("UPLOAD_BYTES", str(512 * 1024)))
PATIENCE = 30.0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def wait_until(condition, what):
    deadline = time.monotonic() + PATIENCE
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError("timed out waiting for " + what)
        time.sleep(0.05)


def healthz(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            return s.recv(64).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


def start(binary, directory):
    port = free_port()
    env = dict(os.environ, DOCGATE_LISTEN=f"127.0.0.1:{port}", DOCGATE_LOG_LEVEL="error",
               DOCGATE_DATABASE_URL=f"sqlite://{directory}/docgate.db")
    server = subprocess.Popen([binary, "serve"], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    wait_until(lambda: healthz(port), "docgate to answer /healthz")
    return server, port


def answered_or_closed(sock):
    """True when the server has written to or closed `sock` (without blocking)."""
    sock.setblocking(False)
    try:
        return sock.recv(1, socket.MSG_PEEK) is not None
    except BlockingIOError:
        return False
    except OSError:
        return True


def held(binary, scenario):
    with tempfile.TemporaryDirectory() as directory:
        server, port = start(binary, directory)
        try:
            before = rss_mb(server.pid)
            sockets = []
            count = IDLE if scenario == "idle" else UPLOADS
            header = (b"POST /api/v1/documents HTTP/1.1\r\nHost: x\r\n"
                      b"Content-Type: application/json\r\nContent-Length: 1048576\r\n\r\n")
            for _ in range(count):
                s = socket.create_connection(("127.0.0.1", port))
                if scenario == "uploads":
                    s.setblocking(False)
                    try:
                        s.send(header + b"x" * UPLOAD_BYTES)
                    except BlockingIOError:
                        pass
                sockets.append(s)
            time.sleep(2.0)  # a measurement, not a synchronisation: let the server take it in
            during = rss_mb(server.pid)
            probe = healthz(port)
            gone = sum(answered_or_closed(s) for s in sockets)
            for s in sockets:
                s.close()
            return before, during, gone, count, probe
        finally:
            server.terminate()
            server.wait(timeout=60)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print(f"{'binary':<40} {'scenario':<8} {'RSS before':>10} {'RSS held':>9} "
          f"{'answered/closed':>16} {'/healthz':>8}")
    for scenario in ("idle", "uploads"):
        for binary in sys.argv[1:]:
            before, during, gone, count, probe = held(binary, scenario)
            print(f"{binary:<40} {scenario:<8} {before:>7.1f} MB {during:>6.1f} MB "
                  f"{gone:>9} of {count:<4} {'200' if probe else 'FAILED':>8}")


if __name__ == "__main__":
    main()
