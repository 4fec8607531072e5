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

# Polls the SQL `$2` (giving one number) on the database at URL `$1` until it gives `$3`, for at
# most `$4` seconds; dies otherwise. One connection polls server-side every 0.1 s (each statement
# of the DO block sees what has committed since), so the wait costs the timed phase no psql
# process and no PostgreSQL backend per poll.
bench_wait_count() {
  local out
  out=$(psql -X -q -v ON_ERROR_STOP=1 -At "$1" 2>&1 <<SQL
DO \$wait\$
DECLARE got text;
BEGIN
  FOR i IN 0 .. $4 * 10 LOOP
    got := ($2)::text;
    IF got = '$3' THEN RETURN; END IF;
    PERFORM pg_sleep(0.1);
  END LOOP;
  RAISE EXCEPTION 'gives %, not $3', got;
END \$wait\$;
SQL
  ) || die "after $4 s: $2: $out"
}

# Ingestion after approval, from the database at URL `$1`'s own times (ms): each approval
# (kh_document.approved_at) and its ingestion (the ingestion consumer's inbox row for the approval
# event, written as that transaction began; it commits with the chunks). Prints, space-separated:
# the approvals per second from the first approval to the last ingestion, and the lag's p50, p99
# and max in ms.
bench_ingestion_lag() {
  psql -X -q -v ON_ERROR_STOP=1 -At -F' ' "$1" -c "
    SELECT round(count(*) * 1000.0 / greatest(max(i.updated_at) - min(d.approved_at), 1), 1),
           round(percentile_cont(0.5) WITHIN GROUP (ORDER BY i.updated_at - d.approved_at)),
           round(percentile_cont(0.99) WITHIN GROUP (ORDER BY i.updated_at - d.approved_at)),
           max(i.updated_at - d.approved_at)
    FROM kh_document d JOIN kh_outbox o ON o.document_id = d.id
      AND o.event_type = 'document.approved' AND o.version = d.approved_version
    JOIN kh_consumer_inbox i ON i.event_id = o.event_id AND i.consumer = 'ingestion'"
}

# The URL of a fresh, empty database named $2 of kind $1 (sqlite: a file in /dev/shm; postgres: a
# database on DOCGATE_TEST_PG_URL's server), dropping what an earlier run left under that name.
bench_fresh_database() {
  local kind=$1 name=$2
  if [ "$kind" = sqlite ]; then
    rm -f "/dev/shm/$name.db"*
    echo "sqlite:///dev/shm/$name.db"
  else
    psql "$DOCGATE_TEST_PG_URL" -qc "DROP DATABASE IF EXISTS $name" \
      -c "CREATE DATABASE $name" >/dev/null 2>&1
    echo "${DOCGATE_TEST_PG_URL%/*}/$name"
  fi
}

# Waits, up to 30 s, until the docgate of process $1 answers /readyz on port $2; dies with its log
# ($3) when it exits first or is still not ready.
bench_wait_ready() {
  local pid=$1 port=$2 log=$3 i
  for ((i = 0; ; i++)); do
    curl -sf -o /dev/null "http://127.0.0.1:$port/readyz" && return 0
    if ! kill -0 "$pid" 2>/dev/null || ((i >= 300)); then
      cat "$log" >&2
      die "docgate (process $pid) not ready on port $port"
    fi
    sleep 0.1
  done
}
