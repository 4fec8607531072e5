#!/usr/bin/env bash
# bench/cluster.sh, as an operator runs it: `start 2` brings up two instances behind HAProxy
# (deploy/haproxy.cfg) with the Redis gate behind three Sentinels, on the test's PostgreSQL and
# RabbitMQ (DOCGATE_TEST_PG_URL / DOCGATE_TEST_AMQP_URL, a database and an exchange of its own).
# Through the balancer: a Chinese document is created, submitted and approved, then found by
# search; with every instance stopped, the balancer's own answer is the contract's 503 UNAVAILABLE
# (problem+json, Retry-After), not HAProxy's HTML page. `stop` leaves no process and drops the
# database.
#   cluster_script_test.sh <docgate binary> <repository root>
set -euo pipefail
binary=$(realpath "$1")
root=$(realpath "$2")
: "${DOCGATE_TEST_PG_URL:?scripts/test.sh exports it}" "${DOCGATE_TEST_AMQP_URL:?}"
export CLUSTER_DIR
CLUSTER_DIR=$(mktemp -d)
export DOCGATE_BINARY=$binary
cluster() { bash "$root/bench/cluster.sh" "$@"; }
fail() {
  echo "FAILED: $*"
  for log in "$CLUSTER_DIR"/*.log; do echo "==== $log"; tail -n 20 "$log"; done
  exit 1
}
cleanup() {
  cluster stop >/dev/null 2>&1 || true
  rm -rf "$CLUSTER_DIR"
}
trap cleanup EXIT

cluster start 2 || fail "start"
set -a
# shellcheck disable=SC1091
source "$CLUSTER_DIR/env"
set +a
database=$(cat "$CLUSTER_DIR/database")
pids=$(cat "$CLUSTER_DIR"/*.pid)
[ "$(echo "$pids" | wc -l)" -eq 8 ] || fail "expected 8 processes (2 docgate, haproxy, 5 redis), got: $pids"
case "$DOCGATE_REDIS_URL" in redis+sentinel://*) ;; *) fail "the gate is not behind Sentinel: $DOCGATE_REDIS_URL" ;; esac

curl -fsS "$DOCGATE_URL/readyz" | grep -q '"lock":"ok"' || fail "the gate is not ok through the balancer"
author=$("$binary" token --sub 作者 --roles author)
reviewer=$("$binary" token --sub reviewer --roles reviewer)
api() { curl -sS -H "Authorization: Bearer $1" -H 'Content-Type: application/json' "${@:2}"; }
json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }

id=$(api "$author" -X POST "$DOCGATE_URL/api/v1/documents" \
  -d '{"title":"集群运维手册","content":"三个哨兵监视 Redis 主节点，故障转移之后网关跟随新的主节点。"}' | json '["id"]')
review=$(api "$author" -X POST -H 'Idempotency-Key: submit-1' \
  "$DOCGATE_URL/api/v1/documents/$id/submit" | json '["review"]["id"]')
status=$(api "$reviewer" -X POST -H 'Idempotency-Key: approve-1' -d '{}' \
  "$DOCGATE_URL/api/v1/reviews/$review/approve" | json '["review"]["status"]')
[ "$status" = approved ] || fail "the approval answered $status"
# Ingested by a consumer of either instance: wait for the search hit, bounded.
found=
for _ in $(seq 300); do
  if api "$author" "$DOCGATE_URL/api/v1/search?q=%E5%93%A8%E5%85%B5" | grep -q "\"document_id\":\"$id\""; then
    found=1
    break
  fi
  sleep 0.1
done
[ -n "$found" ] || fail "the approved document was not found by search within 30 s"

cluster status >"$CLUSTER_DIR/status.txt" || fail "status"
grep -q "^docgate1: running .* readyz 200$" "$CLUSTER_DIR/status.txt" ||
  fail "status does not show the second instance ready: $(cat "$CLUSTER_DIR/status.txt")"

# Every instance stopped: the balancer answers for them as docgate would.
kill "$(cat "$CLUSTER_DIR/docgate0.pid")" "$(cat "$CLUSTER_DIR/docgate1.pid")"
answer=
for _ in $(seq 300); do
  answer=$(curl -sS -i "$DOCGATE_URL/api/v1/documents" -H "Authorization: Bearer $author" | tr -d '\r')
  echo "$answer" | head -n 1 | grep -q ' 503' && break
  sleep 0.1
done
echo "$answer" | head -n 1 | grep -q ' 503' || fail "no 503 with every instance down: $answer"
echo "$answer" | grep -qi '^retry-after: [1-9]' || fail "the 503 has no Retry-After: $answer"
echo "$answer" | grep -qi '^content-type: application/problem+json' || fail "the 503 is not problem+json: $answer"
echo "$answer" | grep -q '"code":"UNAVAILABLE"' || fail "the 503 is not UNAVAILABLE: $answer"

cluster stop || fail "stop"
for pid in $pids; do
  if kill -0 "$pid" 2>/dev/null; then fail "process $pid still runs after stop"; fi
done
if psql -qtA "$DOCGATE_TEST_PG_URL" -c "SELECT 1 FROM pg_database WHERE datname = '$database'" | grep -q 1; then
  fail "the database $database is still there"
fi
[ ! -e "$CLUSTER_DIR/env" ] || fail "stop left $CLUSTER_DIR/env"
echo "cluster_script_test: ok"
