#!/usr/bin/env bash
# The outbox relay benchmark of issue 5 (results in docs/benchmarks.md). On one throwaway
# PostgreSQL server and one RabbitMQ node (scripts/services.sh, under $build/bench-relay-services):
#   1. relay_bench throughput: a backlog of BENCH_EVENTS outbox events drained by OutboxRelay into
#      AmqpEventSink (publisher confirms), against the floor - a plain rabbitmq-c loop publishing
#      the same messages with confirms in the same batch size - plus two sides that split the
#      relay's cost: "store" (claim + mark only, a sink that confirms at once) and "sink"
#      (AmqpEventSink alone, no database). Sides alternate within each of BENCH_ROUNDS rounds,
#      for every batch size of BENCH_BATCHES.
#   2. relay_bench latency: docgate (runtime/application.h in the bench process) on both servers;
#      BENCH_DOCUMENTS documents created and submitted, then approved at BENCH_RATE per second
#      (open loop, BENCH_THREADS client threads); receive time - occurred_at of every
#      document.approved message.
# Prints both reports and a summary: the median ratio relay/floor per batch size (target >= 0.5)
# and the latency p50/p99. Exits non-zero if any step fails; the servers are stopped on every
# exit.
#
#   bench/relay.sh [build_dir]
#   BENCH_EVENTS     backlog per side and round (default 20000)
#   BENCH_BATCHES    comma-separated batch sizes (default 100,500; docgate's default is 100)
#   BENCH_ROUNDS     rounds per batch size (default 3)
#   BENCH_DOCUMENTS  approvals in the latency phase (default 4000)
#   BENCH_RATE       approvals per second (default 200)
#   BENCH_THREADS    approval client threads (default 8)
#   BENCH_MODES      which phases to run (default "throughput latency")
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
events=${BENCH_EVENTS:-20000}
batches=${BENCH_BATCHES:-100,500}
rounds=${BENCH_ROUNDS:-3}
documents=${BENCH_DOCUMENTS:-4000}
rate=${BENCH_RATE:-200}
threads=${BENCH_THREADS:-8}
modes=${BENCH_MODES:-throughput latency}

# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"

bench_require_positive events rounds documents rate threads
[[ $batches =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "BENCH_BATCHES must be like 100,500, got '$batches'"
exe=$build/bench/relay_bench
[ -x "$exe" ] || die "$exe not built (cmake --build $build --target relay_bench)"

bench_services_start relay
[ -n "${DOCGATE_TEST_PG_URL:-}" ] || die "scripts/services.sh printed no DOCGATE_TEST_PG_URL"
[ -n "${DOCGATE_TEST_AMQP_URL:-}" ] || die "scripts/services.sh printed no DOCGATE_TEST_AMQP_URL"
# For relay_bench's CPU accounting: the postmaster and the RabbitMQ node (beam.smp).
BENCH_PG_PID=$(head -n 1 "$DOCGATE_SERVICES_DIR/pg/data/postmaster.pid")
BENCH_RMQ_PID=$(cat "$DOCGATE_SERVICES_DIR/rabbitmq/rabbitmq.pid")
export BENCH_PG_PID BENCH_RMQ_PID
pg_version=$(psql -X -At "$DOCGATE_TEST_PG_URL" -c "SHOW server_version")
rmq_version=$("$DOCGATE_TEST_RABBITMQCTL" version 2>/dev/null || echo unknown)

echo "PostgreSQL $pg_version (fsync=off), RabbitMQ $rmq_version, $(nproc) CPUs; $(uptime)"
throughput_json= latency_json=
for mode in $modes; do
  case $mode in
    throughput)
      out=$("$exe" throughput --events "$events" --batch "$batches" --rounds "$rounds") ||
        die "relay_bench throughput failed: $out"
      throughput_json=$(sed -n 's/^BENCH_RESULT //p' <<<"$out")
      ;;
    latency)
      out=$("$exe" latency --documents "$documents" --rate "$rate" --threads "$threads") ||
        die "relay_bench latency failed: $out"
      latency_json=$(sed -n 's/^BENCH_RESULT //p' <<<"$out")
      ;;
    *) die "unknown mode '$mode' in BENCH_MODES" ;;
  esac
  grep -v '^BENCH_RESULT' <<<"$out"
done
echo "after: $(uptime)"

python3 - "${throughput_json:-null}" "${latency_json:-null}" <<'PY'
import json, sys
t, l = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print("---- summary")
if t:
    for b in t["batches"]:
        print("B=%d: median ratio relay/floor = %.2f (target >= 0.5): %s"
              % (b["batch"], b["median_ratio"], "met" if b["median_ratio"] >= 0.5 else "NOT met"))
if l:
    print("commit-to-receive at %d approvals/s (achieved %.1f/s): p50 %.2f ms, p99 %.2f ms"
          % (l["rate"], l["achieved_rate"], l["latency_p50_ms"], l["latency_p99_ms"]))
print("BENCH_RESULT " + json.dumps({"throughput": t, "latency": l}))
PY
