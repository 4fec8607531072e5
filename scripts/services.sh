#!/usr/bin/env bash
# Starts and stops the throwaway servers the integration tests talk to. Each server gets its own
# data directory under $DOCGATE_SERVICES_DIR (default: ./build/services), its own free port on
# 127.0.0.1, and runs as an unprivileged user; nothing touches a system-wide instance.
#
#   scripts/services.sh start   # prints `export DOCGATE_TEST_PG_URL=...` lines for eval
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

case "${1:-}" in
  start) mkdir -p "$dir"; start_pg ;;
  stop) stop_pg ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
