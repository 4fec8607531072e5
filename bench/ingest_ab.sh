#!/usr/bin/env bash
# Paired ingestion A/B: ingest_bench of build A and of build B in turn, PAIRS times, each run on a
# fresh SQLite file (/dev/shm) or a fresh PostgreSQL database; prints each pair's documents/s of the
# ingestion phase and A/B, then the median ratio. Pairing keeps the ratio meaningful when the
# machine's speed drifts (docs/benchmarks.md).
#   bash bench/ingest_ab.sh A_BUILD_DIR B_BUILD_DIR sqlite|postgres [PAIRS]
# postgres needs DOCGATE_TEST_PG_URL (eval "$(bash scripts/services.sh start)").
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 A_BUILD_DIR B_BUILD_DIR sqlite|postgres [PAIRS]" >&2
  exit 2
fi
a_dir=$1 b_dir=$2 kind=$3 pairs=${4:-5}
documents=${BENCH_DOCUMENTS:-2000}
# shellcheck source=bench/lib.sh
source "$(dirname "$0")/lib.sh"

# documents/s of one run of build $1's ingest_bench, on a fresh database named after $2.
rate() {
  local url
  url=$(bench_fresh_database "$kind" "ingest_ab_$2")
  "$1/bench/ingest_bench" --database-url "$url" --documents "$documents" --queries 2 2>/dev/null |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["ingest_documents_per_s"])'
}

ratios=()
for i in $(seq "$pairs"); do
  a=$(rate "$a_dir" a)
  b=$(rate "$b_dir" b)
  ratio=$(python3 -c "print(round($a / $b, 3))")
  ratios+=("$ratio")
  printf '%s pair %d: A %.0f B %.0f documents/s, A/B %s\n' "$kind" "$i" "$a" "$b" "$ratio"
done
python3 -c "import statistics, sys; r = sorted(map(float, sys.argv[1:])); \
print(f'$kind: median A/B {statistics.median(r):.3f} (min {r[0]:.3f}, max {r[-1]:.3f})')" "${ratios[@]}"
