#!/usr/bin/env bash
# Starts and stops the throwaway servers the integration tests talk to. Each server gets its own
# data directory under $DOCGATE_SERVICES_DIR (default: ./build/services), its own free port on
# 127.0.0.1, and runs as an unprivileged user; nothing touches a system-wide instance.
#
#   scripts/services.sh start   # prints `export DOCGATE_TEST_PG_URL=...` (and _REDIS_URL,
#                               # _REDISS_URL, _REDIS_CA_FILE, _AMQP_URL, _AMQPS_URL,
#                               # _AMQP_CA_FILE, _RABBITMQCTL) lines for eval
#   scripts/services.sh stop
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${DOCGATE_SERVICES_DIR:-$root/build/services}
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)

free_port() { python3 "$root/scripts/free_ports.py" 1; }
# N distinct free ports in one go (all bound at once, so never the same port twice).
free_ports() { python3 "$root/scripts/free_ports.py" "$1"; }

# PostgreSQL refuses to run as root: run it as the `postgres` system user the package creates.
as_pg_user() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

start_pg() {
  local pgdir=$dir/pg port
  rm -rf "$pgdir"
  mkdir -p "$pgdir"
  [ "$(id -u)" -eq 0 ] && chown postgres: "$pgdir"
  port=$(free_port)
  as_pg_user "$pg_bin/initdb" -D "$pgdir/data" -U postgres -A trust -E UTF8 --no-sync >"$pgdir/initdb.log" 2>&1
  as_pg_user "$pg_bin/pg_ctl" -D "$pgdir/data" -l "$pgdir/server.log" -w -t 60 \
    -o "-p $port -k $pgdir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300" \
    start >/dev/null
  echo "$port" >"$pgdir/port"
  echo "export DOCGATE_TEST_PG_URL=postgresql://postgres@127.0.0.1:$port/postgres"
}

stop_pg() {
  local pgdir=$dir/pg
  [ -d "$pgdir/data" ] || return 0
  as_pg_user "$pg_bin/pg_ctl" -D "$pgdir/data" -m fast -w stop >/dev/null 2>&1 || true
}

# Redis: one plain server and one TLS-only server (a throwaway self-signed certificate for
# 127.0.0.1), no persistence, daemonized with a pidfile in its own directory.
start_redis() {
  local rdir=$dir/redis port tls_port
  stop_redis
  rm -rf "$rdir"
  mkdir -p "$rdir/plain" "$rdir/tls"
  port=$(free_port)
  redis-server --port "$port" --bind 127.0.0.1 --dir "$rdir/plain" --save '' --appendonly no \
    --daemonize yes --pidfile "$rdir/plain/redis.pid" --logfile "$rdir/plain/redis.log" >/dev/null
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=127.0.0.1" \
    -addext "subjectAltName=IP:127.0.0.1" \
    -keyout "$rdir/tls/key.pem" -out "$rdir/tls/cert.pem" >/dev/null 2>&1
  tls_port=$(free_port)
  redis-server --port 0 --tls-port "$tls_port" --bind 127.0.0.1 --dir "$rdir/tls" \
    --tls-cert-file "$rdir/tls/cert.pem" --tls-key-file "$rdir/tls/key.pem" \
    --tls-ca-cert-file "$rdir/tls/cert.pem" --tls-auth-clients no \
    --save '' --appendonly no \
    --daemonize yes --pidfile "$rdir/tls/redis.pid" --logfile "$rdir/tls/redis.log" >/dev/null
  for _ in $(seq 100); do
    [ -s "$rdir/plain/redis.pid" ] && [ -s "$rdir/tls/redis.pid" ] && break
    sleep 0.05
  done
  echo "export DOCGATE_TEST_REDIS_URL=redis://127.0.0.1:$port/0"
  echo "export DOCGATE_TEST_REDISS_URL=rediss://127.0.0.1:$tls_port/0"
  echo "export DOCGATE_TEST_REDIS_CA_FILE=$rdir/tls/cert.pem"
}

stop_redis() {
  local pidfile pid
  for pidfile in "$dir"/redis/*/redis.pid; do
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    rm -f "$pidfile"
  done
}

# RabbitMQ: one node with a plain and a TLS-only AMQP listener (a throwaway self-signed certificate
# for 127.0.0.1, server-side TLS only), user guest (loopback only, which 127.0.0.1 is). Everything
# the node would take from the system is its own: node name, AMQP/TLS/distribution ports, an epmd
# on its own port bound to 127.0.0.1 (started here; ERL_EPMD_PORT points the node and rabbitmqctl
# at it, so they never use or start an epmd on the default port 4369), config, enabled plugins
# (none), data, logs and HOME (Erlang cookie), all under $dir/rabbitmq. Runs as the `rabbitmq`
# system user when root.
# $dir/rabbitmq/ctl runs rabbitmqctl against this node (exported as DOCGATE_TEST_RABBITMQCTL).
rmq_bin=/usr/lib/rabbitmq/bin

# A command prefix, not a function, so that it also works after setsid. setpriv execs (no fork,
# environment untouched), so `$!` of a background command is the real process.
as_rmq_user=()
if [ "$(id -u)" -eq 0 ]; then as_rmq_user=(setpriv --reuid=rabbitmq --regid=rabbitmq --init-groups --); fi

# Waits until both listeners answer the AMQP 0-9-1 protocol header with connection.start; fails
# early if the node's pid (once written) is gone.
rmq_wait_ready() {
  python3 - "$@" <<'PY'
import os, socket, ssl, sys, time
pidfile, port, tls_port, ca = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]

def handshake(p, tls):
    s = socket.create_connection(("127.0.0.1", p), timeout=2)
    try:
        if tls:
            s = ssl.create_default_context(cafile=ca).wrap_socket(s, server_hostname="127.0.0.1")
        s.sendall(b"AMQP\x00\x00\x09\x01")
        f = b""
        while len(f) < 11:
            chunk = s.recv(11 - len(f))
            if not chunk:
                return False
            f += chunk
        # a method frame on channel 0: class 10 (connection), method 10 (start)
        return f[0] == 1 and f[1:3] == b"\x00\x00" and f[7:11] == b"\x00\x0a\x00\x0a"
    finally:
        s.close()

deadline = time.monotonic() + 90
while time.monotonic() < deadline:
    try:
        pid = int(open(pidfile).read().strip())
    except (OSError, ValueError):
        pid = None
    if pid is not None:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            sys.exit("rabbitmq: the node exited during startup")
        except PermissionError:
            pass
    try:
        if handshake(port, False) and handshake(tls_port, True):
            sys.exit(0)
    except OSError:
        pass
    time.sleep(0.1)
sys.exit("rabbitmq: not accepting AMQP after 90 s")
PY
}

start_rabbitmq() {
  local rdir=$dir/rabbitmq port tls_port dist_port epmd_port node t0
  stop_rabbitmq
  rm -rf "$rdir"
  mkdir -p "$rdir/home" "$rdir/mnesia" "$rdir/log" "$rdir/tls" "$rdir/conf.d"
  read -r port tls_port dist_port epmd_port < <(free_ports 4)
  [ -n "$epmd_port" ] || { echo "services.sh: no free ports for rabbitmq" >&2; return 1; }
  node=docgate-test-$port@localhost
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=127.0.0.1" \
    -addext "subjectAltName=IP:127.0.0.1" \
    -keyout "$rdir/tls/key.pem" -out "$rdir/tls/cert.pem" >/dev/null 2>&1
  openssl rand -hex 20 | tr -d '\n' >"$rdir/home/.erlang.cookie"
  chmod 400 "$rdir/home/.erlang.cookie"
  echo '[].' >"$rdir/enabled_plugins"
  : >"$rdir/rabbitmq-env.conf"
  {
    echo "listeners.tcp.1 = 127.0.0.1:$port"
    echo "listeners.ssl.1 = 127.0.0.1:$tls_port"
    echo "ssl_options.cacertfile = $rdir/tls/cert.pem"
    echo "ssl_options.certfile = $rdir/tls/cert.pem"
    echo "ssl_options.keyfile = $rdir/tls/key.pem"
    echo "ssl_options.verify = verify_none"
    echo "ssl_options.fail_if_no_peer_cert = false"
    echo "# never block publishers for low disk or memory on a small CI machine"
    echo "disk_free_limit.absolute = 1MB"
    echo "vm_memory_high_watermark.relative = 0.8"
    echo "log.console = false"
    echo "log.file.level = info"
  } >"$rdir/rabbitmq.conf"
  # The environment of both the server and ctl: nothing falls back to /etc/rabbitmq,
  # /var/lib/rabbitmq, /var/log/rabbitmq, the default ports or the default epmd.
  {
    echo "export HOME='$rdir/home'"
    echo "export RABBITMQ_NODENAME='$node'"
    echo "export RABBITMQ_DIST_PORT=$dist_port"
    echo "export ERL_EPMD_PORT=$epmd_port"
    echo "export ERL_EPMD_ADDRESS=127.0.0.1"
    echo "export RABBITMQ_CONF_ENV_FILE='$rdir/rabbitmq-env.conf'"
    echo "export RABBITMQ_CONFIG_FILE='$rdir/rabbitmq.conf'"
    echo "export RABBITMQ_CONFIG_FILES='$rdir/conf.d'"
    echo "export RABBITMQ_ADVANCED_CONFIG_FILE='$rdir/advanced.config'"
    echo "export RABBITMQ_ENABLED_PLUGINS_FILE='$rdir/enabled_plugins'"
    echo "export RABBITMQ_MOTD_FILE='$rdir/motd'"
    echo "export RABBITMQ_MNESIA_BASE='$rdir/mnesia'"
    echo "export RABBITMQ_LOG_BASE='$rdir/log'"
    echo "export RABBITMQ_PID_FILE='$rdir/rabbitmq.pid'"
    echo "export RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS='-start_epmd false -kernel inet_dist_use_interface {127,0,0,1}'"
    echo "export RABBITMQ_CTL_DIST_PORT_MIN=0"
    echo "export RABBITMQ_CTL_DIST_PORT_MAX=0"
    echo "export ERL_CRASH_DUMP='$rdir/log/erl_crash.dump'"
  } >"$rdir/env"
  {
    echo '#!/bin/sh'
    echo "# rabbitmqctl against the docgate test node in $rdir, e.g. \`ctl stop_app\`, \`ctl start_app\`."
    echo "# Refuses once the node is stopped: rabbitmqctl would start an epmd of its own on the"
    echo "# node's epmd port, which nothing would stop."
    echo "if [ ! -f '$rdir/epmd.pid' ]; then echo 'ctl: the node in $rdir is stopped' >&2; exit 69; fi"
    echo ". '$rdir/env'"
    echo "cd '$rdir'"
    # shellcheck disable=SC2016 # expanded when ctl runs
    echo 'if [ "$(id -u)" -eq 0 ]; then'
    echo "  exec setpriv --reuid=rabbitmq --regid=rabbitmq --init-groups -- $rmq_bin/rabbitmqctl -n '$node' \"\$@\""
    echo 'fi'
    echo "exec $rmq_bin/rabbitmqctl -n '$node' \"\$@\""
  } >"$rdir/ctl"
  chmod 755 "$rdir/ctl"
  echo "$epmd_port" >"$rdir/epmd.port"
  if [ "$(id -u)" -eq 0 ]; then chown -R rabbitmq: "$rdir"; fi

  t0=$(date +%s%N)
  (
    cd "$rdir"
    # shellcheck disable=SC1091
    . "$rdir/env"
    setsid "${as_rmq_user[@]}" epmd -port "$epmd_port" -address 127.0.0.1 \
      </dev/null >"$rdir/log/epmd.log" 2>&1 &
    echo $! >"$rdir/epmd.pid"
    for _ in $(seq 100); do epmd -port "$epmd_port" -names >/dev/null 2>&1 && break; sleep 0.05; done
    "${as_rmq_user[@]}" "$rmq_bin/rabbitmq-server" -detached </dev/null >"$rdir/log/startup.log" 2>&1
  )
  if ! rmq_wait_ready "$rdir/rabbitmq.pid" "$port" "$tls_port" "$rdir/tls/cert.pem"; then
    tail -n 30 "$rdir/log/startup.log" "$rdir/log/$node.log" >&2 2>/dev/null || true
    stop_rabbitmq
    return 1
  fi
  echo "services.sh: rabbitmq $node up in $((($(date +%s%N) - t0) / 1000000)) ms" >&2
  echo "export DOCGATE_TEST_AMQP_URL=amqp://guest:guest@127.0.0.1:$port/%2F"
  echo "export DOCGATE_TEST_AMQPS_URL=amqps://guest:guest@127.0.0.1:$tls_port/%2F"
  echo "export DOCGATE_TEST_AMQP_CA_FILE=$rdir/tls/cert.pem"
  echo "export DOCGATE_TEST_RABBITMQCTL=$rdir/ctl"
}

# Whether the pid in file $1 is alive and still the program $2 (not a reused pid).
rmq_alive() {
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 1
  [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ] && kill -0 "$pid" 2>/dev/null
}

# Stops the node (`rabbitmqctl stop`; SIGTERM, then SIGKILL, if it is still there), then its
# epmd, both by the pids recorded under $dir/rabbitmq, so nothing else on the machine is touched.
stop_rabbitmq() {
  local rdir=$dir/rabbitmq pid prog
  [ -d "$rdir" ] || return 0
  if rmq_alive "$rdir/rabbitmq.pid" beam.smp && [ -f "$rdir/epmd.pid" ]; then
    timeout 60 "$rdir/ctl" stop >/dev/null 2>&1 || true
    for _ in $(seq 300); do rmq_alive "$rdir/rabbitmq.pid" beam.smp || break; sleep 0.1; done
  fi
  for prog in beam.smp:rabbitmq.pid epmd:epmd.pid; do
    if rmq_alive "$rdir/${prog#*:}" "${prog%%:*}"; then
      pid=$(cat "$rdir/${prog#*:}")
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 300); do rmq_alive "$rdir/${prog#*:}" "${prog%%:*}" || break; sleep 0.1; done
      if rmq_alive "$rdir/${prog#*:}" "${prog%%:*}"; then kill -KILL "$pid" 2>/dev/null || true; fi
    fi
    rm -f "$rdir/${prog#*:}"
  done
  # An epmd the node may have restarted on our port by itself (epmd refuses while a node is
  # registered on it).
  if [ -f "$rdir/epmd.port" ]; then
    epmd -port "$(cat "$rdir/epmd.port")" -kill >/dev/null 2>&1 || true
  fi
}

case "${1:-}" in
  start) mkdir -p "$dir"; start_pg; start_redis; start_rabbitmq ;;
  stop) stop_rabbitmq; stop_redis; stop_pg ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
