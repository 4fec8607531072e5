#!/usr/bin/env bash
# Paired A/B of the HTTP path: `docgate serve` of build A and of build B in turn, PAIRS times, each
# on a fresh SQLite file (/dev/shm) or PostgreSQL database. Per run: approval_load submits and
# approves DOCUMENTS documents (CLIENTS keep-alive clients), then, once the approvals are ingested,
# one keep-alive client sends SEARCHES GET /api/v1/search requests (Chinese, English and mixed
# queries). Prints each pair's approval p50/p99 and search p50/p99 and A/B, then the median ratios.
#   bash bench/approval_ab.sh A_BUILD_DIR B_BUILD_DIR sqlite|postgres [PAIRS]
# Both builds need docgate and bench/approval_load (Release). postgres needs DOCGATE_TEST_PG_URL
# (eval "$(bash scripts/services.sh start)").
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 A_BUILD_DIR B_BUILD_DIR sqlite|postgres [PAIRS]" >&2
  exit 2
fi
a_dir=$(realpath "$1") b_dir=$(realpath "$2") kind=$3 pairs=${4:-5}
documents=${BENCH_DOCUMENTS:-1000} clients=${BENCH_CLIENTS:-4} searches=${BENCH_SEARCHES:-400}
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"
work=$(mktemp -d)
# PostgreSQL is for several instances, which must share a secret; SQLite keeps its own.
export DOCGATE_JWT_SECRET=${DOCGATE_JWT_SECRET:-approval-ab-secret-of-at-least-32-bytes}
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# One run of build $1 on a fresh database named after $2: prints
# "approval_p50 approval_p99 search_p50 search_p99" in milliseconds.
run() {
  local build=$1 name=$2 url port
  url=$(bench_fresh_database "$kind" "approval_ab_$name")
  port=$(python3 "$root/scripts/free_ports.py")
  DOCGATE_LOG_LEVEL=warn DOCGATE_LISTEN="127.0.0.1:$port" DOCGATE_DATABASE_URL="$url" \
    "$build/docgate" serve >"$work/docgate.log" 2>&1 &
  server_pid=$!
  bench_wait_ready "$server_pid" "$port" "$work/docgate.log"
  local author reviewer
  author=$("$build/docgate" token --sub alice --roles author --database-url "$url")
  reviewer=$("$build/docgate" token --sub bob --roles reviewer --database-url "$url")
  "$build/bench/approval_load" prepare --port "$port" --author-token "$author" \
    --documents "$documents" --clients "$clients" --out "$work/reviews.txt" >/dev/null
  local approval
  approval=$("$build/bench/approval_load" approve --port "$port" --reviewer-token "$reviewer" \
    --reviews "$work/reviews.txt" --clients "$clients")
  python3 - "$port" "$reviewer" "$searches" "$approval" "$documents" <<'EOF'
import http.client, json, sys, time, urllib.parse

port, token, searches = sys.argv[1], sys.argv[2], int(sys.argv[3])
approval, last = json.loads(sys.argv[4]), f"bench {int(sys.argv[5]) - 1}"
queries = ["paragraph", "bench 17", "审批 paragraph", "如何配置审批流程", "bench paragraph 审核"]
connection = http.client.HTTPConnection("127.0.0.1", int(port), timeout=30)
headers = {"Authorization": "Bearer " + token}

def search(q):
    connection.request("GET", "/api/v1/search?" + urllib.parse.urlencode({"q": q}), headers=headers)
    reply = connection.getresponse()
    body = reply.read()
    if reply.status != 200:
        sys.exit(f"search {q!r}: HTTP {reply.status} {body[:200]!r}")
    return json.loads(body)

# Wait (up to 120 s) until the approvals are ingested: the last document is found by its title.
deadline = time.monotonic() + 120
while last not in [item["title"] for item in search(last)["items"]]:
    if time.monotonic() > deadline:
        sys.exit(f"{last!r} not found 120 s after its approval")
    time.sleep(0.2)
latencies = []
for i in range(searches):
    start = time.perf_counter()
    search(queries[i % len(queries)])
    latencies.append((time.perf_counter() - start) * 1000)
latencies.sort()
pick = lambda p: latencies[min(len(latencies) - 1, int(p * len(latencies)))]
print(approval["p50_ms"], approval["p99_ms"], round(pick(0.50), 3), round(pick(0.99), 3))
EOF
  kill "$server_pid"
  wait "$server_pid" 2>/dev/null || true
  server_pid=
}

ratios=()
for i in $(seq "$pairs"); do
  # The order alternates, so that neither side always runs on the warmer machine.
  if ((i % 2)); then a=$(run "$a_dir" a); b=$(run "$b_dir" b); else b=$(run "$b_dir" b); a=$(run "$a_dir" a); fi
  ratio=$(python3 -c "import sys; a = list(map(float, sys.argv[1].split())); b = list(map(float, sys.argv[2].split())); \
print(' '.join(f'{x / y:.3f}' for x, y in zip(a, b)))" "$a" "$b")
  ratios+=("$ratio")
  echo "$kind pair $i: A [$a] B [$b] A/B [$ratio]  (approval p50 p99, search p50 p99, ms)"
done
python3 -c "
import statistics, sys
rows = [list(map(float, r.split())) for r in sys.argv[1:]]
for k, name in enumerate(['approval p50', 'approval p99', 'search p50', 'search p99']):
    r = sorted(row[k] for row in rows)
    print(f'$kind {name}: median A/B {statistics.median(r):.3f} (min {r[0]:.3f}, max {r[-1]:.3f})')
" "${ratios[@]}"
