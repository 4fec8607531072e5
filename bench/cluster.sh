#!/usr/bin/env bash
# The production topology on this machine (docs/runbook.md "Several instances"), to start, use
# and tear down by hand: N `docgate serve` instances behind HAProxy (deploy/haproxy.cfg), one
# PostgreSQL database, the Redis gate as a master, a replica and three Sentinels, and RabbitMQ
# with the relay and the consumers on.
#
#   bench/cluster.sh start [N]   # N instances (default 2); prints the balancer's URL and how to
#                                # get a token; the state is in $CLUSTER_DIR (default
#                                # build/cluster): env, logs, pid files
#   bench/cluster.sh status      # each process, and /readyz of each instance and of the balancer
#   bench/cluster.sh stop        # stops everything start started; safe to run twice
#
#   DOCGATE_BINARY   the docgate to run (default build/docgate)
#   CLUSTER_DIR      the state directory (default build/cluster)
# When DOCGATE_TEST_PG_URL and DOCGATE_TEST_AMQP_URL are set (scripts/services.sh's exports, as in
# `make test`), the cluster uses those servers, with a database and an exchange of its own;
# otherwise it starts its own with scripts/services.sh under $CLUSTER_DIR/services.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${CLUSTER_DIR:-$root/build/cluster}
binary=${DOCGATE_BINARY:-$root/build/docgate}
master_name=docgate

die() {
  echo "cluster: $*" >&2
  exit 1
}

free_ports() { python3 "$root/scripts/free_ports.py" "$1"; }

# Waits up to $2 seconds for `$1` (a command) to succeed.
wait_for() {
  local i
  for i in $(seq $(($2 * 10))); do
    if eval "$1" >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  return 1
}

ready() { curl -fsS -m 2 "http://127.0.0.1:$1/readyz" >/dev/null; }
redis_ping() { [ "$(redis-cli -p "$1" PING 2>/dev/null)" = PONG ]; }

# Starts `$2...` in the background with its output in $1.log and its pid in $1.pid.
spawn() {
  local name=$1
  shift
  setsid "$@" >"$dir/$name.log" 2>&1 </dev/null &
  echo $! >"$dir/$name.pid"
}

start_redis() {
  local master replica s1 s2 s3 s i
  read -r master replica s1 s2 s3 <<<"$(free_ports 5)"
  mkdir -p "$dir/redis-master" "$dir/redis-replica"
  spawn redis-master redis-server --port "$master" --bind 127.0.0.1 --save '' --appendonly no \
    --dir "$dir/redis-master"
  wait_for "redis_ping $master" 10 || die "the Redis master did not start ($dir/redis-master.log)"
  spawn redis-replica redis-server --port "$replica" --bind 127.0.0.1 --save '' --appendonly no \
    --dir "$dir/redis-replica" --replicaof 127.0.0.1 "$master"
  wait_for "redis_ping $replica" 10 || die "the Redis replica did not start"
  i=0
  for s in $s1 $s2 $s3; do
    mkdir -p "$dir/sentinel$i"
    # Sentinel rewrites its configuration file, so each has its own.
    cat >"$dir/sentinel$i/sentinel.conf" <<EOF
port $s
bind 127.0.0.1
dir $dir/sentinel$i
sentinel monitor $master_name 127.0.0.1 $master 2
sentinel down-after-milliseconds $master_name 1000
sentinel failover-timeout $master_name 5000
EOF
    spawn "sentinel$i" redis-server "$dir/sentinel$i/sentinel.conf" --sentinel
    wait_for "redis_ping $s" 10 || die "a Sentinel did not start ($dir/sentinel$i.log)"
    i=$((i + 1))
  done
  echo "DOCGATE_REDIS_URL=redis+sentinel://127.0.0.1:$s1,127.0.0.1:$s2,127.0.0.1:$s3/$master_name" \
    >>"$dir/env"
}

start_services() {
  if [ -n "${DOCGATE_TEST_PG_URL:-}" ] && [ -n "${DOCGATE_TEST_AMQP_URL:-}" ]; then
    pg_url=$DOCGATE_TEST_PG_URL
    amqp_url=$DOCGATE_TEST_AMQP_URL
  else
    local exports
    exports=$(DOCGATE_SERVICES_DIR=$dir/services bash "$root/scripts/services.sh" start) ||
      die "cannot start PostgreSQL and RabbitMQ (scripts/services.sh)"
    touch "$dir/own-services"
    eval "$exports"
    pg_url=$DOCGATE_TEST_PG_URL
    amqp_url=$DOCGATE_TEST_AMQP_URL
  fi
  local name
  name=cluster_$(date +%s)_$$
  psql -q "$pg_url" -c "CREATE DATABASE $name" || die "cannot create the database $name"
  echo "$pg_url" >"$dir/pg-admin-url"
  echo "$name" >"$dir/database"
  {
    echo "DOCGATE_DATABASE_URL=${pg_url%/*}/$name"
    echo "DOCGATE_AMQP_URL=$amqp_url"
    echo "DOCGATE_AMQP_EXCHANGE=docgate.$name"
    echo "DOCGATE_AMQP_QUEUE=docgate.$name.consumers"
  } >>"$dir/env"
}

start() {
  local n=${1:-2} ports balancer i port
  [[ $n =~ ^[1-9][0-9]?$ ]] || die "N must be between 1 and 99, got '$n'"
  [ -x "$binary" ] || die "$binary is not built (make build), or set DOCGATE_BINARY"
  local tool
  for tool in haproxy redis-server psql curl; do
    command -v "$tool" >/dev/null || die "$tool is not installed (scripts/deps.sh)"
  done
  [ ! -e "$dir/env" ] || die "a cluster is running in $dir (bench/cluster.sh stop first)"
  mkdir -p "$dir"
  # A start that fails midway stops what it started.
  trap 'if [ $? -ne 0 ]; then echo "cluster: start failed; stopping what started" >&2; stop; fi' EXIT
  echo "DOCGATE_JWT_SECRET=$(head -c 24 /dev/urandom | base64 | tr -d '/+=')" >"$dir/env"
  start_services
  start_redis

  read -r -a ports <<<"$(free_ports $((n + 1)))"
  balancer=${ports[$n]}
  for ((i = 0; i < n; i++)); do
    port=${ports[$i]}
    # shellcheck disable=SC2046
    spawn "docgate$i" env $(cat "$dir/env") DOCGATE_LISTEN="127.0.0.1:$port" "$binary" serve
    echo "$port" >"$dir/docgate$i.port"
  done
  for ((i = 0; i < n; i++)); do
    wait_for "ready $(cat "$dir/docgate$i.port")" 60 ||
      die "instance $i is not ready within 60 s ($dir/docgate$i.log)"
  done

  {
    cat "$root/deploy/haproxy.cfg"
    for ((i = 0; i < n; i++)); do echo "  server i$i 127.0.0.1:${ports[$i]} check"; done
  } >"$dir/haproxy.cfg"
  DOCGATE_LB_BIND=127.0.0.1:$balancer spawn haproxy haproxy -f "$dir/haproxy.cfg" -db
  echo "$balancer" >"$dir/haproxy.port"
  wait_for "ready $balancer" 30 || die "HAProxy is not ready within 30 s ($dir/haproxy.log)"
  trap - EXIT

  echo "DOCGATE_URL=http://127.0.0.1:$balancer" >>"$dir/env"
  echo "cluster: $n instances behind http://127.0.0.1:$balancer (state in $dir)"
  echo "cluster: a token: env \$(cat $dir/env) $binary token --sub alice --roles author,reviewer"
}

status() {
  [ -e "$dir/env" ] || { echo "cluster: not running ($dir)"; return 1; }
  local pidfile name port
  for pidfile in "$dir"/*.pid; do
    name=$(basename "$pidfile" .pid)
    if kill -0 "$(cat "$pidfile")" 2>/dev/null; then
      port=""
      [ -f "$dir/$name.port" ] && port=" :$(cat "$dir/$name.port") readyz $(curl -s -o /dev/null \
        -w '%{http_code}' -m 2 "http://127.0.0.1:$(cat "$dir/$name.port")/readyz")"
      echo "$name: running (pid $(cat "$pidfile"))$port"
    else
      echo "$name: not running"
    fi
  done
}

stop() {
  local pidfile pid
  # The balancer first, the instances (SIGTERM: they drain), then Redis.
  for pidfile in "$dir"/haproxy.pid "$dir"/docgate*.pid "$dir"/sentinel*.pid "$dir"/redis-*.pid; do
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    kill -TERM "$pid" 2>/dev/null || true
    wait_for "! kill -0 $pid" 30 || kill -KILL "$pid" 2>/dev/null || true
    rm -f "$pidfile"
  done
  if [ -f "$dir/database" ] && [ -f "$dir/pg-admin-url" ] && [ ! -f "$dir/own-services" ]; then
    psql -q "$(cat "$dir/pg-admin-url")" -c "DROP DATABASE IF EXISTS $(cat "$dir/database")" ||
      echo "cluster: could not drop the database $(cat "$dir/database")" >&2
  fi
  if [ -f "$dir/own-services" ]; then
    DOCGATE_SERVICES_DIR=$dir/services bash "$root/scripts/services.sh" stop
  fi
  rm -f "$dir/env" "$dir/database" "$dir/pg-admin-url" "$dir/own-services" "$dir"/*.port
}

case "${1:-}" in
  start) start "${2:-2}" ;;
  status) status ;;
  stop) stop ;;
  *)
    echo "usage: $0 start [N] | status | stop" >&2
    exit 2
    ;;
esac
