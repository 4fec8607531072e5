#!/usr/bin/env bash
# Runs every test of the build in $1 (default: build): unit, integration and e2e. The servers the
# integration tests need are started here, on their own ports and data directories, and stopped
# on exit, so in CI nothing is skipped.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=$(cd "${1:-build}" && pwd)
cd "$root"

export DOCGATE_SERVICES_DIR=$build_dir/services
# The servers (PostgreSQL, Redis, RabbitMQ) are stopped on any exit: bash runs no EXIT trap when
# killed by a signal, so the usual ones are turned into exits. A failed start fails the run (in
# `eval "$(...)"` it would not: eval of an empty string succeeds).
trap 'bash scripts/services.sh stop' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
exports=$(bash scripts/services.sh start)
eval "$exports"

ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" --timeout 600
