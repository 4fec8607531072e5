#!/usr/bin/env bash
# The ingestion and search benchmark of issue 7 (results in docs/benchmarks.md): ingest_bench on a
# fresh SQLite file and on a fresh database of a throwaway PostgreSQL server (scripts/services.sh),
# one after the other, in one run. Prints one JSON line per database.
#
#   bench/ingest.sh [build_dir]
#   BENCH_DOCUMENTS   approved documents (default 2000: about 10,000+ chunks of 1000 bytes)
#   BENCH_PARAGRAPHS  paragraphs per document (default 20, about 5 KB)
#   BENCH_QUERIES     timed searches (default 2000)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"
documents=${BENCH_DOCUMENTS:-2000}
paragraphs=${BENCH_PARAGRAPHS:-20}
queries=${BENCH_QUERIES:-2000}
bench_require_positive documents paragraphs queries
exe=$build/bench/ingest_bench
[ -x "$exe" ] || die "$exe not built (cmake --build $build --target ingest_bench)"

work=$(mktemp -d)
bench_cleanup_extra() { rm -rf "$work"; }
bench_services_start ingest
psql -X -q -v ON_ERROR_STOP=1 "$DOCGATE_TEST_PG_URL" -c "CREATE DATABASE docgate_ingest_bench"
pg_url=${DOCGATE_TEST_PG_URL%/postgres}/docgate_ingest_bench

echo "PostgreSQL $(psql -X -At "$DOCGATE_TEST_PG_URL" -c 'SHOW server_version') (fsync=off)," \
  "SQLite $(sqlite3 --version 2>/dev/null | cut -d' ' -f1 || echo '(lib)'), $(nproc) CPUs; $(uptime)"
args=(--documents "$documents" --paragraphs "$paragraphs" --queries "$queries")
"$exe" --database-url "sqlite://$work/ingest.db" "${args[@]}"
"$exe" --database-url "$pg_url" "${args[@]}"
