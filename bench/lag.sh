#!/usr/bin/env bash
# Ingestion lag on the production topology (issue 19, results in docs/benchmarks.md): from an
# approval to its document being ingested (searchable), under a steady rate of approvals through
# HAProxy. bench/cluster.sh starts BENCH_INSTANCES instances with the Redis gate behind Sentinel,
# PostgreSQL and RabbitMQ; approval_load prepares BENCH_RATE * BENCH_SECONDS pending reviews, then
# approves them at BENCH_RATE a second (an open loop). The lag of each approval comes from the
# database's own times: kh_document.approved_at, and the ingestion consumer's inbox row of the
# approval event (written as that transaction began; it commits with the chunks).
#
#   bench/lag.sh [build_dir]
#   BENCH_RATE       approvals a second (default 200)
#   BENCH_SECONDS    how long the steady load lasts (default 30)
#   BENCH_INSTANCES  docgate instances (default 2)
#   BENCH_CLIENTS    approval_load's connections (default 32)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
rate=${BENCH_RATE:-200}
seconds=${BENCH_SECONDS:-30}
instances=${BENCH_INSTANCES:-2}
clients=${BENCH_CLIENTS:-32}

# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"
bench_require_positive rate seconds instances clients
for exe in "$build/docgate" "$build/bench/approval_load"; do
  [ -x "$exe" ] || die "$exe not built (cmake --build $build --target docgate approval_load)"
done
documents=$((rate * seconds))

export CLUSTER_DIR=$build/bench-lag-cluster DOCGATE_BINARY=$build/docgate
bench_cleanup_extra() { bash "$root/bench/cluster.sh" stop; }
bench_services_start lag
bash "$root/bench/cluster.sh" start "$instances" >/dev/null
set -a
# shellcheck disable=SC1091
source "$CLUSTER_DIR/env"
set +a
port=${DOCGATE_URL##*:}
wait_count() { bench_wait_count "$DOCGATE_DATABASE_URL" "$@"; }

author=$("$build/docgate" token --sub alice --roles author)
reviewer=$("$build/docgate" token --sub bob --roles reviewer)
work=$CLUSTER_DIR/lag
mkdir -p "$work"
"$build/bench/approval_load" prepare --port "$port" --author-token "$author" \
  --documents "$documents" --clients "$clients" --out "$work/reviews.txt"
wait_count "SELECT count(*) FROM kh_consumer_inbox WHERE state = 'done'" $((2 * documents)) 300

load=$("$build/bench/approval_load" approve --port "$port" --reviewer-token "$reviewer" \
  --reviews "$work/reviews.txt" --clients "$clients" --rate "$rate") ||
  die "approval_load failed: $load"
wait_count "SELECT count(*) FROM kh_document WHERE ingest_status = 'done'" "$documents" 300

read -r _ lag_p50 lag_p99 lag_max <<<"$(bench_ingestion_lag "$DOCGATE_DATABASE_URL")"
read -r achieved p50 p99 < <(python3 -c '
import json, sys
r = json.loads(sys.argv[1])
print("%.1f %.1f %.1f" % (r["approvals_per_second"], r["p50_ms"], r["p99_ms"]))' "$load")
echo "$instances instances behind HAProxy, $(nproc) CPUs; $documents approvals at $rate/s planned ($achieved/s achieved), $clients connections"
echo "approval answer (from its planned time): p50 = $p50 ms, p99 = $p99 ms"
echo "approval to ingested: p50 = $lag_p50 ms, p99 = $lag_p99 ms, max = $lag_max ms"
