#!/usr/bin/env bash
# Starts and stops the throwaway servers the integration tests talk to. Each server gets its own
# data directory under $DOCGATE_SERVICES_DIR (default: ./build/services), its own free port on
# 127.0.0.1, and runs as an unprivileged user; nothing touches a system-wide instance.
#
#   scripts/services.sh start   # prints `export DOCGATE_TEST_PG_URL=...` (and _REDIS_URL,
#                               # _REDISS_URL, _REDIS_CA_FILE) lines for eval
#   scripts/services.sh stop
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${DOCGATE_SERVICES_DIR:-$root/build/services}
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)

free_port() {
  python3 - <<'PY'
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()
PY
}

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

case "${1:-}" in
  start) mkdir -p "$dir"; start_pg; start_redis ;;
  stop) stop_redis; stop_pg ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
