#!/usr/bin/env bash
# Runs the tests of the build in $1 (default: build): unit, integration and e2e; further arguments
# go to ctest (`-R regex` selects tests). The servers the integration tests need are started here,
# on their own ports and data directories, and stopped on exit, so in CI nothing is skipped.
#
# A build made with -DDOCGATE_SANITIZE=... (make test-asan, make test-tsan) runs with every
# sanitizer report written to $1/sanitizer-reports, from the test binaries and from every docgate
# process they start; the run fails when any report was written, even one from a child process
# whose exit status no test looks at.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=$(cd "${1:-build}" && pwd)
shift || true
cd "$root"

sanitize=$(sed -n 's/^DOCGATE_SANITIZE:STRING=//p' "$build_dir/CMakeCache.txt")
reports=$build_dir/sanitizer-reports
if [ -n "$sanitize" ]; then
  rm -rf "$reports" && mkdir -p "$reports"
  supp=$root/tests/sanitizers
  # halt_on_error: the first report ends the process, so a finding cannot scroll past unnoticed.
  export ASAN_OPTIONS="log_path=$reports/asan:halt_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
  export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
  export UBSAN_OPTIONS="log_path=$reports/ubsan:halt_on_error=1:print_stacktrace=1"
  export TSAN_OPTIONS="log_path=$reports/tsan:halt_on_error=1:second_deadlock_stack=1:suppressions=$supp/tsan.supp"
fi

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

status=0
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" --timeout 600 "$@" || status=$?

# ctest shows a skipped test's name, not its output: the reasons (tests print "SKIPPED: ...").
# In the sharded suites (tests/CMakeLists.txt) ctest sees the shard, not the test: GoogleTest's
# "<file>:<line>: Skipped", the reason and "[  SKIPPED ] <test>" are turned into the same line.
log=$build_dir/Testing/Temporary/LastTest.log
skipped=$( { grep -h "^SKIPPED: " "$log" 2>/dev/null || true
             awk '/: Skipped$/ { getline reason; next_reason = reason; next }
                  /^\[  SKIPPED \] / && next_reason != "" {
                    sub(/ \([0-9]+ ms\)$/, "", $0); sub(/^\[  SKIPPED \] /, "", $0)
                    print "SKIPPED: " $0 ": " next_reason; next_reason = "" }' "$log" 2>/dev/null
           } | sort -u)
if [ -n "$skipped" ]; then
  echo "$skipped"
  echo "test.sh: the tests above were skipped"
fi

# Every sanitizer report ends with a "SUMMARY: <Sanitizer>: ..." line; a log file without one holds
# only statistics (e.g. which documented suppressions matched).
if [ -n "$sanitize" ]; then
  found=$(grep -l "^SUMMARY: " "$reports"/* 2>/dev/null || true)
  if [ -n "$found" ]; then
    echo "test.sh: $(echo "$found" | wc -l) sanitizer report(s) ($sanitize):" >&2
    for f in $found; do
      echo "==== $f" >&2
      cat "$f" >&2
    done
    status=1
  else
    echo "test.sh: no sanitizer report ($sanitize)"
  fi
fi
exit "$status"
