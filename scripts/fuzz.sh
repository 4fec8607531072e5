#!/usr/bin/env bash
# Runs the libFuzzer targets of a DOCGATE_FUZZ build (`make fuzz`; docs/testing.md "Fuzzing").
# For each target: first every input kept in fuzz/regressions/<target>/ (each must pass), then
# FUZZ_SECONDS (default 60) of fuzzing from the seeds of fuzz/corpus/<target>/. New inputs go to a
# working corpus in the build directory, never into the repository. FUZZ_TARGETS (names separated
# by spaces or commas, e.g. "chunker search") selects targets; all by default.
# Exits non-zero when any target crashes, printing the command that reproduces it.
set -euo pipefail

build_dir=$(cd "${1:?usage: scripts/fuzz.sh BUILD_DIR}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${FUZZ_SECONDS:-60}
bin_dir=$build_dir/fuzz
work=$build_dir/fuzz-work

# The longest input each target is given: enough for its grammar, short enough to stay fast.
max_len() {
  case $1 in
    chunker | markdown_chunker) echo 8192 ;;
    http_api | json_body | idempotency_codec | idempotent_outcome) echo 4096 ;;
    jwt) echo 2048 ;;
    redact | search | event_message) echo 1024 ;;
    *) echo 512 ;;
  esac
}

all=$(cd "$root/fuzz" && ls ./*_fuzz.cpp | sed 's|^\./||; s|_fuzz\.cpp$||')
selected=${FUZZ_TARGETS:-$all}
selected=${selected//,/ }

# Every finding aborts with a report; libmongoc must not leave shared-memory files behind.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export MONGOC_DISABLE_SHM=1

# One target: its kept regressions, then the fuzzer. Prints what happened; fails on a crash.
fuzz_target() {
  local target=$1 bin=$bin_dir/${1}_fuzz
  mkdir -p "$work/corpus/$target" "$work/artifacts/$target" "$work/logs"
  local log=$work/logs/$target.log
  local args=(-max_len="$(max_len "$target")" -timeout=25 -rss_limit_mb=2048
              -artifact_prefix="$work/artifacts/$target/")
  if [ -f "$root/fuzz/$target.dict" ]; then args+=(-dict="$root/fuzz/$target.dict"); fi

  local regressions=()
  if [ -d "$root/fuzz/regressions/$target" ]; then
    while IFS= read -r -d '' file; do regressions+=("$file"); done \
      < <(find "$root/fuzz/regressions/$target" -type f -print0 | sort -z)
  fi
  if [ ${#regressions[@]} -gt 0 ]; then
    if ! "$bin" "${args[@]}" "${regressions[@]}" >"$log" 2>&1; then
      tail -n 40 "$log"
      echo "fuzz: $target fails a kept regression input; reproduce with:"
      echo "  $bin ${regressions[*]}"
      return 1
    fi
    echo "fuzz: $target: ${#regressions[@]} regression input(s) pass"
  fi

  local before
  before=$(ls "$work/artifacts/$target" | wc -l)
  if "$bin" "${args[@]}" -max_total_time="$seconds" -print_final_stats=1 \
      "$work/corpus/$target" "$root/fuzz/corpus/$target" >"$log" 2>&1; then
    local runs cov
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
    echo "fuzz: $target: ${seconds}s, ${runs:-?} inputs, ${cov:-cov: ?}, no crash"
  else
    tail -n 60 "$log"
    local artifact
    artifact=$(ls -t "$work/artifacts/$target" | head -n 1)
    echo "fuzz: $target crashed (log: $log); reproduce with:"
    if [ "$(ls "$work/artifacts/$target" | wc -l)" -gt "$before" ] && [ -n "$artifact" ]; then
      echo "  $bin $work/artifacts/$target/$artifact"
    else
      echo "  $bin ${args[*]} $work/corpus/$target $root/fuzz/corpus/$target"
    fi
    return 1
  fi
}

for target in $selected; do
  if [ ! -x "$bin_dir/${target}_fuzz" ]; then
    echo "fuzz: no target '$target' in $bin_dir (targets: $(echo $all))" >&2
    exit 2
  fi
done

# FUZZ_JOBS targets at a time (default: one per core), each fuzzing for its own FUZZ_SECONDS on
# one core, so a pass takes 1/FUZZ_JOBS of the time with the same fuzzing per target. A target's
# report is printed whole when all have ended, in the order of the targets.
jobs=${FUZZ_JOBS:-$(nproc)}
reports=$work/reports
rm -rf "$reports" && mkdir -p "$reports"
for target in $selected; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  echo "fuzz: $target: started (log: $work/logs/$target.log)"
  ( if fuzz_target "$target" >"$reports/$target.out" 2>&1; then touch "$reports/$target.ok"; fi ) &
done
wait

failed=()
for target in $selected; do
  if [ -f "$reports/$target.ok" ]; then
    cat "$reports/$target.out"
  else
    cat "$reports/$target.out" >&2
    failed+=("$target")
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: every target passed"
