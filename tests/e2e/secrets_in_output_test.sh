#!/usr/bin/env bash
# No password reaches a log line or an output: `docgate migrate`, `serve` and `worker` run against
# PostgreSQL with a password in DOCGATE_DATABASE_URL (the test server trusts every connection, so
# any password connects), at the most verbose log level, and everything they print is searched for
# it. So is the error of a URL that libpq cannot parse (libpq quotes such a URL whole).
#   secrets_in_output_test.sh <docgate binary>
# Needs DOCGATE_TEST_PG_URL and DOCGATE_TEST_AMQP_URL (make test sets them).
set -euo pipefail
binary=$(realpath "$1")
: "${DOCGATE_TEST_PG_URL:?run under make test}" "${DOCGATE_TEST_AMQP_URL:?run under make test}"
work=$(mktemp -d)
pids=()
db=secrets_$$_$RANDOM
cleanup() {
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  psql -q "$DOCGATE_TEST_PG_URL" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"

password="Pw-$RANDOM-s3cr3t%40x"   # written percent-encoded in the URL; libpq decodes it to ...@x
decoded="${password//%40/@}"
hostport=${DOCGATE_TEST_PG_URL#postgresql://postgres@}
hostport=${hostport%%/*}
psql -q "$DOCGATE_TEST_PG_URL" -c "CREATE DATABASE $db" >/dev/null
export DOCGATE_DATABASE_URL="postgresql://postgres:$password@$hostport/$db"
export DOCGATE_JWT_SECRET=secrets-test-jwt-secret-0123456789abcdef
export DOCGATE_LOG_LEVEL=trace
export DOCGATE_AMQP_URL=$DOCGATE_TEST_AMQP_URL
export DOCGATE_AMQP_EXCHANGE=secrets.$db DOCGATE_AMQP_QUEUE=secrets.$db

leaks() {  # file...
  grep -l -F -e "$password" -e "$decoded" "$@" || return 1
}
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
wait_for() {  # description command...
  local what=$1
  shift
  for _ in $(seq 300); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "timed out waiting for $what"
  return 1
}

"$binary" migrate >migrate.out 2>&1 || { cat migrate.out; echo "migrate failed"; exit 1; }
grep -q '\*\*\*' migrate.out || { cat migrate.out; echo "migrate did not name the database"; exit 1; }

port=$(free_port)
DOCGATE_LISTEN=127.0.0.1:$port "$binary" serve >serve.out 2>&1 &
pids+=($!)
wait_for "serve to be ready" curl -sf "http://127.0.0.1:$port/readyz"
"$binary" worker >worker.out 2>&1 &
pids+=($!)
wait_for "the worker to start" grep -q "worker consuming" worker.out
for pid in "${pids[@]}"; do kill -TERM "$pid"; wait "$pid" || true; done
pids=()

# A URL libpq cannot parse, which its message quotes.
DOCGATE_DATABASE_URL="postgresql://postgres:$password@[::1/$db" "$binary" migrate >bad.out 2>&1 &&
  { cat bad.out; echo "a malformed URL was accepted"; exit 1; }
grep -q "malformed database URL" bad.out || { cat bad.out; echo "no parse error reported"; exit 1; }

if leaked=$(leaks migrate.out serve.out worker.out bad.out); then
  for file in $leaked; do echo "== $file"; cat "$file"; done
  echo "the password reached the output of: $leaked"
  exit 1
fi
echo "no password in $(cat migrate.out serve.out worker.out bad.out | wc -l) lines of output"
