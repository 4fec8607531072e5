#!/usr/bin/env bash
# The failover benchmark of issue 12 (results in docs/benchmarks.md): a `docgate serve` holding a
# claimed batch (its broker link stalled) is killed with SIGKILL; measured is the time from the
# kill to the first and the last of the batch's events published again, by the same process
# restarted at once ("restart") and by a second instance that kept running ("survivor"), p50 over
# BENCH_RUNS runs each. See bench/failover_bench.cpp for the steps and the other settings.
#
#   bench/failover.sh [build_dir] [docgate_binary]
#   BENCH_RUNS        runs per mode (default 7)
#   BENCH_MODES       "restart survivor" (default both)
#   BENCH_SERVICES    "running": use the servers DOCGATE_TEST_PG_URL and DOCGATE_TEST_AMQP_URL
#                     name instead of starting throwaway ones (scripts/services.sh)
#   BENCH_EVENTS, BENCH_PHASE_MS, BENCH_CLAIM_TTL_MS: see failover_bench.cpp
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
binary=${2:-$build/docgate}
modes=${BENCH_MODES:-restart survivor}

# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"

exe=$build/bench/failover_bench
[ -x "$exe" ] || die "$exe not built (cmake --build $build --target failover_bench)"
[ -x "$binary" ] || die "$binary is not an executable"
if [ "${BENCH_SERVICES:-}" = running ]; then
  [ -n "${DOCGATE_TEST_PG_URL:-}" ] || die "BENCH_SERVICES=running needs DOCGATE_TEST_PG_URL"
else
  bench_services_start failover
fi
[ -n "${DOCGATE_TEST_AMQP_URL:-}" ] || die "no DOCGATE_TEST_AMQP_URL"

echo "docgate $binary, $(nproc) CPUs; $(uptime)"
# shellcheck disable=SC2086
"$exe" "$binary" $modes
