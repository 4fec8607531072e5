#!/usr/bin/env bash
# The embeddings benchmark of issue 17 (results in docs/benchmarks.md): embedding_search_bench on
# fresh SQLite files at each size, then on a fresh database of a throwaway PostgreSQL server
# (scripts/services.sh) at the largest, one after the other, in one run. Prints one JSON line per
# run.
#
#   bench/embeddings.sh [build_dir]
#   BENCH_SIZES       chunks per run, comma-separated (default 10000,100000)
#   BENCH_DIMENSIONS  vector dimensions (default 1024)
#   BENCH_QUERIES     timed searches per mode (default 300)
#   BENCH_SAMPLES     approvals timed to searchable (default 40)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"
sizes=${BENCH_SIZES:-10000,100000}
dimensions=${BENCH_DIMENSIONS:-1024}
queries=${BENCH_QUERIES:-300}
samples=${BENCH_SAMPLES:-40}
[[ $sizes =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "BENCH_SIZES must be positive integers, got '$sizes'"
bench_require_positive dimensions queries samples
exe=$build/bench/embedding_search_bench
[ -x "$exe" ] || die "$exe not built (cmake --build $build --target embedding_search_bench)"

work=$(mktemp -d)
bench_cleanup_extra() { rm -rf "$work"; }
bench_services_start embeddings
psql -X -q -v ON_ERROR_STOP=1 "$DOCGATE_TEST_PG_URL" -c "CREATE DATABASE docgate_embeddings_bench"
pg_url=${DOCGATE_TEST_PG_URL%/postgres}/docgate_embeddings_bench

echo "PostgreSQL $(psql -X -At "$DOCGATE_TEST_PG_URL" -c 'SHOW server_version') (fsync=off)," \
  "$(nproc) CPUs; $(uptime)"
args=(--dimensions "$dimensions" --queries "$queries" --samples "$samples")
largest=0
for size in ${sizes//,/ }; do
  "$exe" --database-url "sqlite://$work/embeddings-$size.db" --chunks "$size" "${args[@]}"
  rm -f "$work/embeddings-$size.db"*
  [ "$size" -gt "$largest" ] && largest=$size
done
"$exe" --database-url "$pg_url" --chunks "$largest" "${args[@]}"
