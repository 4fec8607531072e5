#!/usr/bin/env bash
# Runs every test of the build in $1 (default: build): unit, integration and e2e. The servers the
# integration tests need are started here, on their own ports and data directories, and stopped
# on exit, so in CI nothing is skipped.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=$(cd "${1:-build}" && pwd)
cd "$root"

export DOCGATE_SERVICES_DIR=$build_dir/services
trap 'bash scripts/services.sh stop' EXIT
eval "$(bash scripts/services.sh start)"

ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" --timeout 600
