#!/usr/bin/env bash
# Approvals per second before and after review quorums (issue 38), paired: per pair, three runs on
# fresh databases, in an order that rotates so that no run always finds the machine warmer:
#   before   build BEFORE (no quorums), one approval a review;
#   after/1  build AFTER at DOCGATE_REVIEW_QUORUM=1, one approval a review;
#   after/2  build AFTER at DOCGATE_REVIEW_QUORUM=2: a first pass of approvals (each a vote that
#            writes review.voted), then a second by another reviewer (each completes its review).
# Each run: approval_load submits DOCUMENTS documents, then approves them with CLIENTS keep-alive
# clients. "approved/s" is reviews approved per second of approving (both passes at quorum 2);
# "requests/s" is approve requests answered 200 per second.
#   bash bench/quorum_ab.sh BEFORE_BUILD AFTER_BUILD sqlite|postgres [PAIRS]
# Both builds need docgate and bench/approval_load (Release). postgres needs DOCGATE_TEST_PG_URL
# (eval "$(bash scripts/services.sh start)").
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 BEFORE_BUILD AFTER_BUILD sqlite|postgres [PAIRS]" >&2
  exit 2
fi
before_dir=$(realpath "$1") after_dir=$(realpath "$2") kind=$3 pairs=${4:-3}
documents=${BENCH_DOCUMENTS:-1000} clients=${BENCH_CLIENTS:-8}
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"
work=$(mktemp -d)
export DOCGATE_JWT_SECRET=${DOCGATE_JWT_SECRET:-quorum-ab-secret-of-at-least-32-bytes}
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# One run of build $1 at quorum $2 on a fresh database named after $3: prints
# "approved_per_second requests_per_second".
run() {
  local build=$1 quorum=$2 name=$3 url port author pass out seconds=0 requests=0
  url=$(bench_fresh_database "$kind" "quorum_ab_$name")
  port=$(python3 "$root/scripts/free_ports.py")
  local quorum_env=()
  [ "$quorum" -gt 1 ] && quorum_env=(DOCGATE_REVIEW_QUORUM="$quorum")
  env "${quorum_env[@]}" DOCGATE_LOG_LEVEL=warn DOCGATE_LISTEN="127.0.0.1:$port" \
    DOCGATE_DATABASE_URL="$url" "$build/docgate" serve >"$work/docgate.log" 2>&1 &
  server_pid=$!
  bench_wait_ready "$server_pid" "$port" "$work/docgate.log"
  author=$("$build/docgate" token --sub alice --roles author --database-url "$url")
  "$build/bench/approval_load" prepare --port "$port" --author-token "$author" \
    --documents "$documents" --clients "$clients" --out "$work/reviews.txt" >/dev/null
  for pass in $(seq "$quorum"); do
    local reviewer
    reviewer=$("$build/docgate" token --sub "reviewer$pass" --roles reviewer --database-url "$url")
    out=$("$build/bench/approval_load" approve --port "$port" --reviewer-token "$reviewer" \
      --reviews "$work/reviews.txt" --clients "$clients")
    seconds=$(python3 -c "import json, sys; print($seconds + json.loads(sys.argv[1])['seconds'])" "$out")
    requests=$((requests + $(python3 -c "import json, sys; print(json.loads(sys.argv[1])['approvals'])" "$out")))
  done
  kill "$server_pid"
  wait "$server_pid" 2>/dev/null || true
  server_pid=
  python3 -c "import sys; s = float(sys.argv[1]); print(f'{int(sys.argv[2]) / s:.1f} {int(sys.argv[3]) / s:.1f}')" \
    "$seconds" "$documents" "$requests"
}

rows=()
for i in $(seq "$pairs"); do
  declare -A got=()
  order=(before after1 after2)
  for _ in $(seq $(((i - 1) % 3))); do order=("${order[@]:1}" "${order[0]}"); done
  for which in "${order[@]}"; do
    case $which in
      before) got[before]=$(run "$before_dir" 1 "before_$i") ;;
      after1) got[after1]=$(run "$after_dir" 1 "after1_$i") ;;
      after2) got[after2]=$(run "$after_dir" 2 "after2_$i") ;;
    esac
  done
  echo "$kind pair $i (${order[*]}): before [${got[before]}] after/1 [${got[after1]}]" \
    "after/2 [${got[after2]}]  (approved/s requests/s)"
  rows+=("${got[before]} ${got[after1]} ${got[after2]}")
  unset got
done
python3 -c "
import statistics, sys
rows = [list(map(float, r.split())) for r in sys.argv[1:]]
after_before = sorted(r[2] / r[0] for r in rows)
q2_q1 = sorted(r[4] / r[2] for r in rows)
q2_requests = sorted(r[5] / r[3] for r in rows)
print(f'$kind approved/s after/1 : before = median {statistics.median(after_before):.3f} (min {after_before[0]:.3f}, max {after_before[-1]:.3f})')
print(f'$kind approved/s after/2 : after/1 = median {statistics.median(q2_q1):.3f} (min {q2_q1[0]:.3f}, max {q2_q1[-1]:.3f})')
print(f'$kind requests/s after/2 : after/1 = median {statistics.median(q2_requests):.3f}')
" "${rows[@]}"
