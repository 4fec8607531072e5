#!/usr/bin/env bash
# The approval-path benchmark (docs/benchmarks.md): on one throwaway PostgreSQL server, first
# pgbench runs the SQL of an approval (bench/approve.pgbench) with 32 clients, then docgate serves
# the same database schema and bench/approval_load approves N distinct reviews over HTTP with 32
# clients. Prints both results and the ratio.
#
#   bench/run.sh [build_dir]      (BENCH_DOCUMENTS, default 4000; BENCH_CLIENTS, default 32)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
documents=${BENCH_DOCUMENTS:-4000}
clients=${BENCH_CLIENTS:-32}
pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)

export DOCGATE_SERVICES_DIR=$build/bench-services
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  bash "$root/scripts/services.sh" stop
}
trap cleanup EXIT
eval "$(bash "$root/scripts/services.sh" start)"
admin_url=$DOCGATE_TEST_PG_URL
base_url=${admin_url%/postgres}
export DOCGATE_JWT_SECRET=docgate-bench-secret

psql -q "$admin_url" -c "CREATE DATABASE bench_pgbench" -c "CREATE DATABASE bench_docgate"

# pgbench: the same statements on the same schema, seeded with one pending review per document.
"$build/docgate" migrate --database-url "$base_url/bench_pgbench" >/dev/null
psql -q "$base_url/bench_pgbench" <<SQL
INSERT INTO kh_document (title, status, version, author_id, current_review_id, ingest_status, created_at, updated_at)
  SELECT 'bench ' || i, 'pending_review', 1, 'alice', i, 'none', 1, 1 FROM generate_series(1, $documents) i;
INSERT INTO kh_document_review (document_id, document_version, status, submitted_by, submitted_at)
  SELECT i, 1, 'pending', 'alice', 1 FROM generate_series(1, $documents) i;
VACUUM ANALYZE;
SQL
pgbench_out=$("$pg_bin/pgbench" -n -M prepared -c "$clients" -j 2 -t $((documents / clients)) \
  -D reviews="$documents" -f "$root/bench/approve.pgbench" "$base_url/bench_pgbench")
pgbench_tps=$(echo "$pgbench_out" | sed -n 's/^tps = \([0-9.]*\).*/\1/p' | head -n 1)
pgbench_latency=$(echo "$pgbench_out" | sed -n 's/^latency average = \(.*\)$/\1/p')

# docgate: the real service over HTTP on the same server.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
DOCGATE_LOG_LEVEL=warn DOCGATE_LISTEN=127.0.0.1:$port DOCGATE_DATABASE_URL=$base_url/bench_docgate \
  DOCGATE_DB_POOL_SIZE=${BENCH_POOL_SIZE:-16} "$build/docgate" serve &
server_pid=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.1; done
author=$("$build/docgate" token --sub alice --roles author --database-url "$base_url/bench_docgate")
reviewer=$("$build/docgate" token --sub bob --roles reviewer --database-url "$base_url/bench_docgate")
docgate_out=$("$build/bench/approval_load" --port "$port" --author-token "$author" \
  --reviewer-token "$reviewer" --documents "$documents" --clients "$clients")
docgate_rate=$(echo "$docgate_out" | python3 -c 'import json,sys; print(round(json.load(sys.stdin)["approvals_per_second"], 1))')

echo "pgbench (approval SQL, $clients clients, -M prepared): tps = $pgbench_tps, latency avg = $pgbench_latency"
echo "docgate (HTTP approvals, $clients clients, $documents distinct reviews): $docgate_out"
python3 -c "print('ratio docgate/pgbench = %.2f' % ($docgate_rate / $pgbench_tps))"
