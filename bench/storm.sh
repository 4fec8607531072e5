#!/usr/bin/env bash
# The storm with faults of issue 19 (results in docs/benchmarks.md "A storm with faults"):
# BENCH_INSTANCES docgate instances behind HAProxy, the Redis gate behind Sentinel, PostgreSQL and
# RabbitMQ, all on this machine; BENCH_CLIENTS clients storm for BENCH_SECONDS while one fault
# strikes; then the drain time and the invariants. One table row per fault; see
# bench/storm_bench.cpp for the faults and the checks.
#
#   bench/storm.sh [build_dir] [docgate_binary]
#   BENCH_FAULTS     the faults to run (default: none kill-instance redis-failover pg-restart
#                    rabbitmq-restart cut-db cut-redis cut-broker)
#   BENCH_SECONDS, BENCH_CLIENTS, BENCH_INSTANCES, BENCH_DRAIN_SECONDS: see storm_bench.cpp
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
binary=${2:-$build/docgate}

# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"

exe=$build/bench/storm_bench
[ -x "$exe" ] || die "$exe not built (cmake --build $build --target storm_bench)"
[ -x "$binary" ] || die "$binary is not an executable"
command -v haproxy >/dev/null || die "haproxy is not installed (scripts/deps.sh)"
command -v redis-server >/dev/null || die "redis-server is not installed (scripts/deps.sh)"
bench_services_start storm

# The fault pg-restart restarts the throwaway server scripts/services.sh started (its options are
# kept in postmaster.opts).
pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
pg_restart="$pg_bin/pg_ctl -D $DOCGATE_SERVICES_DIR/pg/data -l $DOCGATE_SERVICES_DIR/pg/server.log -m fast -w restart >/dev/null"
if [ "$(id -u)" -eq 0 ]; then pg_restart="runuser -u postgres -- $pg_restart"; fi
export STORM_PG_RESTART=$pg_restart

echo "docgate $binary, $(nproc) CPUs, ${BENCH_INSTANCES:-2} instances, ${BENCH_CLIENTS:-8} clients," \
  "${BENCH_SECONDS:-30} s a storm; $(uptime)"
# shellcheck disable=SC2086
"$exe" "$binary" ${BENCH_FAULTS:-}
