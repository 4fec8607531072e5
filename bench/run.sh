#!/usr/bin/env bash
# The approval-path benchmark of issue 3 (results in docs/benchmarks.md). On one throwaway
# PostgreSQL server (scripts/services.sh, under $build/bench-services):
#   1. pgbench runs bench/approve.pgbench - the SQL of one docgate approval, prepared - with
#      $BENCH_CLIENTS clients, each transaction approving a distinct pending review of a seeded
#      database (bench_pgbench);
#   2. right after, docgate serves a second database (bench_docgate) on the same server, and
#      bench/approval_load creates and submits $BENCH_DOCUMENTS documents over HTTP, then approves
#      every review once with $BENCH_CLIENTS concurrent clients.
# Both timed phases start from the same state: freshly VACUUM ANALYZEd and CHECKPOINTed, with no
# other step of the benchmark running.
# Prints both throughputs, docgate's p50/p99, the ratio docgate/pgbench (target >= 0.5), and the
# CPU time each process spent per approval. Exits non-zero if any step fails or any approval is
# missing; the docgate server and the PostgreSQL cluster are stopped on every exit.
#
# BENCH_PATH=full (issue 19) runs docgate in the default production configuration instead: the
# Redis gate, the relay to RabbitMQ with publisher confirms and the consumers on in `serve`. An
# approval then counts once its document is ingested: the sustained rate is the approvals divided
# by the time from the first approval until the last ingestion (both as the database recorded
# them), and CPU is counted until then, Redis's and RabbitMQ's too. It also prints the lag from
# approval to ingestion (p50/p99/max).
#
#   bench/run.sh [build_dir]
#   BENCH_PATH         db (default: PostgreSQL alone, issue 3) or full (issue 19)
#   BENCH_DOCUMENTS    approvals per side (default 8000; a multiple of BENCH_CLIENTS)
#   BENCH_CLIENTS      concurrent clients of pgbench and of approval_load (default 32)
#   BENCH_PGBENCH_THREADS  pgbench -j (default: nproc)
#   BENCH_POOL_SIZE    DOCGATE_DB_POOL_SIZE (default 8)
#   BENCH_HTTP_WORKERS DOCGATE_HTTP_WORKERS (default: the pool size)
#   BENCH_IO_THREADS   DOCGATE_HTTP_IO_THREADS (default 2)
#   BENCH_LOG_LEVEL    DOCGATE_LOG_LEVEL (default warn: no log line per request)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
documents=${BENCH_DOCUMENTS:-8000}
clients=${BENCH_CLIENTS:-32}
pgbench_threads=${BENCH_PGBENCH_THREADS:-$(nproc)}
pool_size=${BENCH_POOL_SIZE:-8}
http_workers=${BENCH_HTTP_WORKERS:-$pool_size}
io_threads=${BENCH_IO_THREADS:-2}
log_level=${BENCH_LOG_LEVEL:-warn}
path=${BENCH_PATH:-db}

# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"  # die, bench_wait_count, bench_ingestion_lag

for n in documents clients pgbench_threads pool_size http_workers io_threads; do
  [[ ${!n} =~ ^[1-9][0-9]*$ ]] || die "$n must be a positive integer, got '${!n}'"
done
[[ $path =~ ^(db|full)$ ]] || die "BENCH_PATH must be db or full, got '$path'"
((documents % clients == 0)) || die "BENCH_DOCUMENTS ($documents) must be a multiple of BENCH_CLIENTS ($clients)"
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$pg_bin" ] && [ -x "$pg_bin/pgbench" ] || die "pgbench not found under /usr/lib/postgresql/*/bin"
for tool in psql python3 curl; do command -v "$tool" >/dev/null || die "$tool not found"; done
for exe in "$build/docgate" "$build/bench/approval_load"; do
  [ -x "$exe" ] || die "$exe not built (cmake --build $build --target docgate approval_load)"
done

export DOCGATE_SERVICES_DIR=$build/bench-services
work=$DOCGATE_SERVICES_DIR/run
server_pid=
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if [ -n "$server_pid" ]; then
    if kill -0 "$server_pid" 2>/dev/null; then
      kill "$server_pid" 2>/dev/null || true
      wait "$server_pid" 2>/dev/null || true
    else
      local server_status=0
      wait "$server_pid" 2>/dev/null || server_status=$?
      echo "bench: docgate had already exited (status $server_status); its log:" >&2
      tail -n 20 "$work/docgate.log" >&2 || true
      status=1
    fi
  fi
  bash "$root/scripts/services.sh" stop || status=1
  [ "$status" -eq 0 ] || echo "bench: FAILED (exit $status); logs in $work" >&2
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

services_env=$(bash "$root/scripts/services.sh" start) || die "cannot start PostgreSQL"
eval "$services_env"
[ -n "${DOCGATE_TEST_PG_URL:-}" ] || die "scripts/services.sh printed no DOCGATE_TEST_PG_URL"
rm -rf "$work"
mkdir -p "$work"
admin_url=$DOCGATE_TEST_PG_URL
base_url=${admin_url%/postgres}
postmaster_pid=$(head -n 1 "$DOCGATE_SERVICES_DIR/pg/data/postmaster.pid")
export DOCGATE_JWT_SECRET=docgate-bench-secret

sql() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }
value() { psql -X -q -v ON_ERROR_STOP=1 -At "$@"; }

# CPU time in clock ticks: of a process (all its threads), of the PostgreSQL cluster (the
# postmaster, the children it has reaped - such as pgbench's backends - and its live children), and
# of this shell's reaped children (such as pgbench).
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
pg_ticks() {
  local total child
  total=$(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$postmaster_pid/stat")
  for child in $(ps -o pid= --ppid "$postmaster_pid"); do
    total=$((total + $(awk '{ print $14 + $15 }' "/proc/$child/stat" 2>/dev/null || echo 0)))
  done
  echo "$total"
}
children_ticks() { awk '{ print $16 + $17 }' "/proc/$$/stat"; }
# The machine's busy ticks (all CPUs): what the benchmark's processes did not spend of it during a
# phase, other processes on this (shared) machine did.
busy_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }
# Percent of the machine's capacity used by others during a phase of $1 seconds.
foreign() { python3 -c "print('%.0f%%' % (max(0, $1) * 100.0 / $hz / $2 / $(nproc)))"; }
hz=$(getconf CLK_TCK)
# Milliseconds of CPU per approval from a tick difference.
per_approval() { python3 -c "print('%.3f' % ($1 * 1000.0 / $hz / $documents))"; }

# Vacuums and checkpoints a database, so that a timed phase neither pays for the previous step's
# writes nor runs on tables full of dead rows.
settle() {
  sql "$1" -c "VACUUM ANALYZE" -c "CHECKPOINT"
}

sql "$admin_url" -c "CREATE DATABASE bench_docgate"
pg_version=$(value "$admin_url" -c "SHOW server_version")
pg_settings=$(value "$admin_url" -F= -c "SELECT name, current_setting(name) FROM pg_settings
  WHERE name IN ('fsync', 'synchronous_commit', 'shared_buffers', 'max_connections', 'wal_level',
                 'full_page_writes', 'checkpoint_timeout', 'max_wal_size', 'autovacuum')
  ORDER BY name" | paste -sd ' ')

# ---- pgbench: the approval's SQL on a seeded database of the same schema -----------------------
# The seed is what docgate's preparation leaves behind: N documents pending review, each with its
# content and pending review (document i, review i) and the delivered outbox event of its
# submission. run_pgbench DATABASE CLIENTS sets pgbench_tps, pgbench_latency and the CPU ticks of
# postgres (pgbench_pg_ticks) and of pgbench itself (pgbench_client_ticks).
run_pgbench() {
  local db=$1 n_clients=$2 url=$base_url/$1 out now_ms pg_before client_before processed approved
  sql "$admin_url" -c "CREATE DATABASE $db"
  "$build/docgate" migrate --database-url "$url" >/dev/null
  sql "$url" <<SQL
INSERT INTO kh_document (title, status, version, author_id, current_review_id, ingest_status,
                         created_at, updated_at)
  SELECT 'bench ' || i, 'pending_review', 1, 'alice', i, 'none', 1, 1
  FROM generate_series(1, $documents) i;
INSERT INTO kh_document_content (document_id, version, title, content, edited_by, created_at)
  SELECT i, 1, 'bench ' || i, 'paragraph' || chr(10) || chr(10) || 'paragraph', 'alice', 1
  FROM generate_series(1, $documents) i;
INSERT INTO kh_document_editor (document_id, editor, last_version)
  SELECT i, 'alice', 1 FROM generate_series(1, $documents) i;
INSERT INTO kh_document_review (document_id, document_version, status, submitted_by, submitted_at)
  SELECT i, 1, 'pending', 'alice', 1 FROM generate_series(1, $documents) i;
INSERT INTO kh_outbox (event_id, event_type, document_id, review_id, version, actor_id,
                       occurred_at, delivered_at)
  SELECT gen_random_uuid()::text, 'document.submitted', i, i, 1, 'alice', 1, 1
  FROM generate_series(1, $documents) i;
SQL
  settle "$url"

  now_ms=$(python3 -c 'import time; print(int(time.time() * 1000))')
  pg_before=$(pg_ticks)
  client_before=$(children_ticks)
  busy_before=$(busy_ticks)
  out=$("$pg_bin/pgbench" -n -M prepared -c "$n_clients" -j "$pgbench_threads" \
    -t $((documents / n_clients)) -D n=0 -D clients="$n_clients" -D approved=approved \
    -D pending=pending -D reviewer=bob -D event_type=document.approved -D now="$now_ms" \
    -f "$root/bench/approve.pgbench" "$url" 2>"$work/$db.err") || {
    cat "$work/$db.err" >&2
    die "pgbench failed on $db"
  }
  pgbench_busy_ticks=$(($(busy_ticks) - busy_before))
  pgbench_client_ticks=$(($(children_ticks) - client_before))
  sleep 0.5  # the postmaster reaps pgbench's backends, adding their CPU time to its own
  pgbench_pg_ticks=$(($(pg_ticks) - pg_before))
  pgbench_foreign_ticks=$((pgbench_busy_ticks - pgbench_client_ticks - pgbench_pg_ticks))
  echo "$out" >"$work/$db.out"
  pgbench_tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' <<<"$out")
  pgbench_latency=$(sed -n 's/^latency average = \([0-9.]*\) ms$/\1/p' <<<"$out")
  processed=$(sed -n 's/^number of transactions actually processed: \([0-9]*\)\/.*/\1/p' <<<"$out")
  [ -n "$pgbench_tps" ] && [ -n "$pgbench_latency" ] || die "cannot read pgbench's output: $out"
  [ "$processed" = "$documents" ] || die "pgbench processed $processed of $documents transactions"
  approved=$(approvals "$url")
  [ "$approved" = $((3 * documents)) ] || die "pgbench did not approve every review exactly once on $db"
}

# Approved reviews + approved documents + approval events: 3 N when every review was approved once.
approvals() {
  value "$1" -c "SELECT
    (SELECT count(*) FROM kh_document_review WHERE status = 'approved') +
    (SELECT count(*) FROM kh_document WHERE status = 'approved' AND current_review_id IS NULL) +
    (SELECT count(*) FROM kh_outbox WHERE event_type = 'document.approved')"
}

# ---- 1. pgbench with the same number of clients as docgate gets -------------------------------
run_pgbench bench_pgbench "$clients"
read -r tps latency pg_side_pg_ticks pg_side_client_ticks <<<"$pgbench_tps $pgbench_latency $pgbench_pg_ticks $pgbench_client_ticks"
foreign_pgbench=$(foreign "$pgbench_foreign_ticks" "$(python3 -c "print($documents / $tps)")")

# ---- 2. docgate: the real service over HTTP, on the same server --------------------------------
port=$(python3 "$root/scripts/free_ports.py")
full_env=()
if [ "$path" = full ]; then
  full_env=(DOCGATE_REDIS_URL="$DOCGATE_TEST_REDIS_URL" DOCGATE_AMQP_URL="$DOCGATE_TEST_AMQP_URL"
            DOCGATE_AMQP_EXCHANGE=docgate.bench DOCGATE_AMQP_QUEUE=docgate.bench.consumers)
fi
env "${full_env[@]}" DOCGATE_LOG_LEVEL="$log_level" DOCGATE_LISTEN="127.0.0.1:$port" \
  DOCGATE_DATABASE_URL="$base_url/bench_docgate" DOCGATE_DB_POOL_SIZE="$pool_size" \
  DOCGATE_HTTP_WORKERS="$http_workers" DOCGATE_HTTP_IO_THREADS="$io_threads" \
  "$build/docgate" serve >"$work/docgate.log" 2>&1 &
server_pid=$!
bench_wait_ready "$server_pid" "$port" "$work/docgate.log"
author=$("$build/docgate" token --sub alice --roles author --database-url "$base_url/bench_docgate")
reviewer=$("$build/docgate" token --sub bob --roles reviewer --database-url "$base_url/bench_docgate")

"$build/bench/approval_load" prepare --port "$port" --author-token "$author" \
  --documents "$documents" --clients "$clients" --out "$work/reviews.txt"
# The submissions' events are delivered (and, on the full path, consumed by both consumers) before
# the timed phase.
wait_count() { bench_wait_count "$base_url/bench_docgate" "$@"; }
wait_count "SELECT count(*) FROM kh_outbox WHERE delivered_at IS NULL" 0 30
if [ "$path" = full ]; then
  wait_count "SELECT count(*) FROM kh_consumer_inbox WHERE state = 'done'" $((2 * documents)) 120
fi
settle "$base_url/bench_docgate"

# PostgreSQL's own count of what it was made to do: transactions, and rows inserted, updated (of
# which HOT) and deleted per table. Backends report them at most 10 s after they go idle (PostgreSQL
# 15), so the reading after the timed phase waits that long; the relay's idle polls add about one
# transaction a second meanwhile.
pg_work() {
  value "$base_url/bench_docgate" -F' ' -c "
    SELECT 'transactions', xact_commit + xact_rollback, 0, 0, 0 FROM pg_stat_database
      WHERE datname = current_database()
    UNION ALL
    SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del FROM pg_stat_user_tables"
}
sleep 11  # the preparation's statistics, as below
pg_work >"$work/pg_work.before"

# The other servers of the full path, whose CPU is counted too.
rabbit_pid=$(cat "$DOCGATE_SERVICES_DIR/rabbitmq/rabbitmq.pid")
redis_pid=$(cat "$DOCGATE_SERVICES_DIR/redis/plain/redis.pid")
pg_before=$(pg_ticks)
server_before=$(ticks "$server_pid")
rabbit_before=$(ticks "$rabbit_pid")
redis_before=$(ticks "$redis_pid")
busy_before=$(busy_ticks)
docgate_out=$("$build/bench/approval_load" approve --port "$port" --reviewer-token "$reviewer" \
  --reviews "$work/reviews.txt" --clients "$clients") || die "approval_load failed: $docgate_out"
if [ "$path" = full ]; then
  # Done when every approved document is ingested (the consumers commit ingest_status = done).
  wait_count "SELECT count(*) FROM kh_document WHERE ingest_status = 'done'" "$documents" 300
fi
docgate_busy_ticks=$(($(busy_ticks) - busy_before))
docgate_server_ticks=$(($(ticks "$server_pid") - server_before))
docgate_pg_ticks=$(($(pg_ticks) - pg_before))
rabbit_ticks=$(($(ticks "$rabbit_pid") - rabbit_before))
redis_ticks=$(($(ticks "$redis_pid") - redis_before))
echo "$docgate_out" >"$work/approval_load.out"
sleep 11  # PostgreSQL's statistics of the idle backends (pg_work above)
pg_work >"$work/pg_work.after"
approved=$(approvals "$base_url/bench_docgate")
[ "$approved" = $((3 * documents)) ] || die "docgate did not approve every review exactly once"

# ---- 3. reference: pgbench with as many connections as docgate's pool -------------------------
# Not the issue's target (that is step 1, the same 32 clients), but the other honest floor: docgate
# funnels its 32 clients into DOCGATE_DB_POOL_SIZE connections, and on a small machine PostgreSQL
# runs the same SQL faster with fewer backends.
kill "$server_pid"
wait "$server_pid" || die "docgate did not stop cleanly (see $work/docgate.log)"
server_pid=
pool_tps=
if ((pool_size != clients && documents % pool_size == 0)); then
  run_pgbench bench_pgbench_pool "$pool_size"
  pool_tps=$pgbench_tps pool_latency=$pgbench_latency
  pool_pg_ticks=$pgbench_pg_ticks pool_client_ticks=$pgbench_client_ticks
  foreign_pool=$(foreign "$pgbench_foreign_ticks" "$(python3 -c "print($documents / $pool_tps)")")
fi

# ---- Report ------------------------------------------------------------------------------------
read -r docgate_rate p50 p99 driver_cpu < <(python3 -c '
import json, sys
r = json.loads(sys.argv[1])
print("%.1f %.2f %.2f %.3f" % (r["approvals_per_second"], r["p50_ms"], r["p99_ms"],
                               r["driver_cpu_seconds"]))' "$docgate_out")
ratio() { python3 -c "print('%.2f' % ($1 / $2))"; }
driver_ticks=$(python3 -c "print(round($driver_cpu * $hz))")
foreign_docgate=$(foreign $((docgate_busy_ticks - docgate_server_ticks - docgate_pg_ticks - driver_ticks)) \
  "$(python3 -c "print($documents / $docgate_rate)")")

cat <<EOF
PostgreSQL $pg_version on $(nproc) CPUs: $pg_settings
$documents approvals a side, $clients clients; pgbench -M prepared -j $pgbench_threads; docgate with
  DOCGATE_DB_POOL_SIZE=$pool_size DOCGATE_HTTP_WORKERS=$http_workers DOCGATE_HTTP_IO_THREADS=$io_threads DOCGATE_LOG_LEVEL=$log_level
pgbench, $clients clients:  tps = $(printf '%.1f' "$tps"), latency avg = $latency ms  (other processes used $foreign_pgbench of the CPUs meanwhile)
docgate, $clients clients:  approvals/s = $docgate_rate, p50 = $p50 ms, p99 = $p99 ms  (others: $foreign_docgate)
ratio docgate/pgbench = $(ratio "$docgate_rate" "$tps") (target >= 0.5)
CPU ms per approval:  pgbench side: postgres $(per_approval "$pg_side_pg_ticks"), pgbench $(per_approval "$pg_side_client_ticks")
                      docgate side: postgres $(per_approval "$docgate_pg_ticks"), docgate $(per_approval "$docgate_server_ticks"), approval_load $(per_approval "$driver_ticks")
EOF
if [ "$path" = full ]; then
  read -r sustained lag_p50 lag_p99 lag_max <<<"$(bench_ingestion_lag "$base_url/bench_docgate")"
  cat <<EOF
full path (Redis gate, relay to RabbitMQ with confirms, consumers in serve):
  sustained approvals/s (first approval to last ingestion) = $sustained, ratio to pgbench = $(ratio "$sustained" "$tps") (target >= 0.2)
  approval to ingestion: p50 = $lag_p50 ms, p99 = $lag_p99 ms, max = $lag_max ms
  CPU ms per approval until the last ingestion: postgres $(per_approval "$docgate_pg_ticks") ($(ratio "$docgate_pg_ticks" "$pg_side_pg_ticks")x pgbench's, target <= 3x), docgate $(per_approval "$docgate_server_ticks"), rabbitmq $(per_approval "$rabbit_ticks"), redis $(per_approval "$redis_ticks")
EOF
fi
echo "PostgreSQL's work per approval (docgate side, until the end of the timed phase):"
python3 - "$work/pg_work.before" "$work/pg_work.after" "$documents" <<'PY'
import sys
def read(path):
    return {f[0]: [int(x) for x in f[1:]] for f in (l.split() for l in open(path)) if f}
before, after, n = read(sys.argv[1]), read(sys.argv[2]), int(sys.argv[3])
for name in sorted(after):
    d = [a - b for a, b in zip(after[name], before.get(name, [0, 0, 0, 0]))]
    if name == "transactions":
        print("  transactions: %.2f" % (d[0] / n))
    elif any(d):
        print("  %s: %.2f inserted, %.2f updated (%.2f HOT), %.2f deleted"
              % (name, d[0] / n, d[1] / n, d[2] / n, d[3] / n))
PY
if [ -n "$pool_tps" ]; then
  cat <<EOF
reference: pgbench, $pool_size clients (docgate's pool size): tps = $(printf '%.1f' "$pool_tps"), latency avg = $pool_latency ms  (others: $foreign_pool);
  docgate/that = $(ratio "$docgate_rate" "$pool_tps"); CPU ms per approval: postgres $(per_approval "$pool_pg_ticks"), pgbench $(per_approval "$pool_client_ticks")
EOF
fi
echo "BENCH_RESULT $(python3 -c '
import json, sys
keys = ["pgbench_tps", "pgbench_latency_ms", "docgate_approvals_per_second", "p50_ms", "p99_ms",
        "pool_size", "http_workers", "io_threads", "pgbench_pool_tps"]
r = dict(zip(keys, [float(v) if v else None for v in sys.argv[1:]]))
r["ratio"] = round(r["docgate_approvals_per_second"] / r["pgbench_tps"], 3)
print(json.dumps(r))' "$tps" "$latency" "$docgate_rate" "$p50" "$p99" "$pool_size" \
  "$http_workers" "$io_threads" "$pool_tps")"
