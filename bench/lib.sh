# Shared by the bench scripts (sourced, not run): `die`, and `bench_services_start NAME` which
# starts scripts/services.sh's servers under $build/bench-NAME-services, exports what it prints
# (DOCGATE_TEST_PG_URL, ...), and stops them on every exit, also after a failure or a signal.
# A script that needs more clean-up defines bench_cleanup_extra before starting.
# Expects $root and $build.

die() {
  echo "bench: $*" >&2
  exit 1
}

# Dies unless each named variable holds a positive integer.
bench_require_positive() {
  local n
  for n in "$@"; do
    [[ ${!n} =~ ^[1-9][0-9]*$ ]] || die "$n must be a positive integer, got '${!n}'"
  done
}

bench_cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if declare -F bench_cleanup_extra >/dev/null; then bench_cleanup_extra || status=1; fi
  bash "$root/scripts/services.sh" stop || status=1
  [ "$status" -eq 0 ] || echo "bench: FAILED (exit $status)" >&2
  exit "$status"
}

bench_services_start() {
  export DOCGATE_SERVICES_DIR=$build/bench-$1-services
  trap bench_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  local services_env
  services_env=$(bash "$root/scripts/services.sh" start) || die "cannot start the services"
  eval "$services_env"
  [ -n "${DOCGATE_TEST_PG_URL:-}" ] || die "scripts/services.sh printed no DOCGATE_TEST_PG_URL"
}
