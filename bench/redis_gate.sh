#!/usr/bin/env bash
# The Redis gate benchmark of issue 4 (results in docs/benchmarks.md). On one throwaway plain
# redis-server (scripts/services.sh, under $build/bench-redis-services):
#   1. bench/redis_gate_bench: RedisLockGate Acquire+Release on distinct keys and, in alternating
#      blocks in the same process, the floor - two PINGs over the RedisConnection class the gate
#      pools - printing p50/p99 of both;
#   2. bench/redis_lock.py: redis-py's Lock acquire(blocking=False)+release on the same server,
#      same iteration counts.
# Prints the ratios gate p50 / floor p50 (target <= 1.3) and redis-py p50 / gate p50 (target
# >= 1.5). Exits non-zero if any step fails; the servers are stopped on every exit.
#
#   bench/redis_gate.sh [build_dir]
#   BENCH_ITERATIONS  timed iterations per side (default 20000)
#   BENCH_WARMUP      untimed iterations first (default 1000)
#   BENCH_BLOCK       iterations per alternating block in redis_gate_bench (default 500)
#   BENCH_PYTHON      the interpreter for redis_lock.py (default /usr/bin/python3: Debian's, which
#                     is the one that sees Debian's python3-redis even when a pyenv shim comes first)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
iterations=${BENCH_ITERATIONS:-20000}
warmup=${BENCH_WARMUP:-1000}
block=${BENCH_BLOCK:-500}
py=${BENCH_PYTHON:-/usr/bin/python3}

# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"

bench_require_positive iterations warmup block
command -v redis-server >/dev/null || die "redis-server not found (bash scripts/deps.sh)"
command -v python3 >/dev/null || die "python3 not found"
[ -x "$py" ] || die "$py not found (BENCH_PYTHON)"
"$py" -c 'import redis' 2>/dev/null || die "$py cannot import redis: python3-redis not installed (bash scripts/deps.sh)"
exe=$build/bench/redis_gate_bench
[ -x "$exe" ] || die "$exe not built (cmake --build $build --target redis_gate_bench)"

# scripts/services.sh starts PostgreSQL too; it idles during this benchmark.
bench_services_start redis
url=${DOCGATE_TEST_REDIS_URL:-}
[ -n "$url" ] || die "scripts/services.sh printed no DOCGATE_TEST_REDIS_URL"
port=${url#redis://127.0.0.1:}
port=${port%%/*}
for ((i = 0; ; i++)); do
  [ "$(redis-cli -p "$port" PING 2>/dev/null)" = PONG ] && break
  ((i < 100)) || die "redis-server on port $port does not answer PING"
  sleep 0.05
done
redis_version=$(redis-cli -p "$port" INFO server | sed -n 's/^redis_version:\([^\r]*\).*/\1/p')

gate_out=$("$exe" "$url" --iterations "$iterations" --warmup "$warmup" --block "$block") ||
  die "redis_gate_bench failed: $gate_out"
py_out=$("$py" "$root/bench/redis_lock.py" "$url" --iterations "$iterations" --warmup "$warmup") ||
  die "redis_lock.py failed: $py_out"
[ "$(redis-cli -p "$port" DBSIZE)" = 0 ] || die "keys left behind on the server"

gate_json=$(sed -n 's/^BENCH_RESULT //p' <<<"$gate_out")
py_json=$(sed -n 's/^BENCH_RESULT //p' <<<"$py_out")
[ -n "$gate_json" ] && [ -n "$py_json" ] || die "cannot read the results"

echo "redis-server $redis_version on $(nproc) CPUs, 127.0.0.1 loopback, plain redis://"
grep -v '^BENCH_RESULT' <<<"$gate_out"
grep -v '^BENCH_RESULT' <<<"$py_out"
python3 - "$gate_json" "$py_json" <<'PY'
import json, sys
g, p = json.loads(sys.argv[1]), json.loads(sys.argv[2])
r = dict(g, **p)
r["gate_over_floor_p50"] = round(g["gate_p50_us"] / g["floor_p50_us"], 3)
r["redis_py_over_gate_p50"] = round(p["redis_py_p50_us"] / g["gate_p50_us"], 3)
print("ratio gate/floor p50 = %.2f (target <= 1.3)" % r["gate_over_floor_p50"])
print("ratio redis-py/gate p50 = %.2f (target >= 1.5)" % r["redis_py_over_gate_p50"])
print("BENCH_RESULT " + json.dumps(r))
PY
