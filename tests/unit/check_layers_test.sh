#!/usr/bin/env bash
# scripts/check_layers.sh on a copy of src/: the copy as it is passes; each planted violation of
# the dependency rule, alone, fails the check (exit 1) with the offending file:line in the report.
# Usage: check_layers_test.sh REPO_ROOT
set -euo pipefail
root=$(cd "$1" && pwd)
check=$root/scripts/check_layers.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$root/src" "$work/src"

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

if ! out=$(bash "$check" "$work" 2>&1); then
  fail "the unchanged tree is refused:"$'\n'"$out"
fi

# plant FILE INCLUDE WHY: FILE gains INCLUDE as its second line; the check must refuse it there.
plant() {
  local file=$1 include=$2 why=$3 status=0
  cp "$work/$file" "$work/saved"
  sed -i "1a $include" "$work/$file"
  out=$(bash "$check" "$work" 2>&1) || status=$?
  mv "$work/saved" "$work/$file"
  if [ "$status" -ne 1 ]; then
    fail "$why: exit $status, expected 1:"$'\n'"$out"
  elif ! grep -qF "$file:2: $include" <<<"$out"; then
    fail "$why: $file:2 is not named:"$'\n'"$out"
  else
    echo "ok: $why"
  fi
}

plant src/core/model.h '#include <boost/asio.hpp>' "core includes Boost.Asio"
plant src/core/chunker.cpp '#include <fstream>' "core includes <fstream>"
plant src/app/ports/lock_gate.h '#include "app/document_service.h"' "a port includes a service"
plant src/app/ports/clock.h '#include <spdlog/spdlog.h>' "a port includes spdlog"
plant src/core/utf8.h '#include <some/other.h>' "core includes a non-standard header"
plant src/core/model.h '#include "app/clock.h"' "core includes app"
plant src/core/model.h '#include "runtime/config.h"' "core includes runtime"
plant src/app/system_clock.h '#include <pqxx/pqxx>' "app includes libpqxx"
plant src/app/system_clock.h '#include <sqlite3.h>' "app includes SQLite"
plant src/app/system_clock.h '#include <hiredis/hiredis.h>' "app includes hiredis"
plant src/app/system_clock.h '#include <amqp.h>' "app includes rabbitmq-c"
plant src/app/system_clock.h '#include <mongoc/mongoc.h>' "app includes libmongoc"
plant src/app/system_clock.h '#include <spdlog/spdlog.h>' "app includes spdlog"
plant src/app/system_clock.h '#include <sys/socket.h>' "app includes sockets"
plant src/app/system_clock.h '#include "adapters/pg/pg_config.h"' "app includes an adapter"
plant src/app/system_clock.h '#include "worker/janitor.h"' "app includes worker"
plant src/adapters/redis/redis_config.h '#include "adapters/pg/pg_config.h"' \
  "an adapter includes another adapter"
plant src/adapters/http/dto.h '#  include "runtime/config.h"' "an adapter includes runtime"
plant src/adapters/amqp/amqp_url.h '#include "worker/janitor.h"' "an adapter includes worker"
plant src/worker/janitor.h '#include "adapters/redis/redis_config.h"' "worker includes an adapter"
plant src/adapters/redis/redis_config.h '#include "adapters/sql/shared_statements.h"' \
  "an adapter other than PostgreSQL and SQLite includes the shared statements"
plant src/adapters/sql/shared_statements.h '#include "adapters/pg/pg_config.h"' \
  "the shared statements include an adapter"
plant src/adapters/sql/shared_statements.h '#include <sqlite3.h>' \
  "the shared statements include a database library"

# What the rule allows stays allowed.
cp "$work/src/adapters/redis/redis_config.h" "$work/saved"
sed -i '1a #include "adapters/redis/redis_url.h"' "$work/src/adapters/redis/redis_config.h"
sed -i '1a #include <sstream>' "$work/src/core/model.h"
sed -i '1a #include "app/ports/clock.h"' "$work/src/app/ports/lock_gate.h"
if ! out=$(bash "$check" "$work" 2>&1); then
  fail "an adapter's own header or <sstream> in core is refused:"$'\n'"$out"
fi

if [ "$failures" -ne 0 ]; then
  echo "check_layers_test: $failures failure(s)" >&2
  exit 1
fi
echo "check_layers_test: every planted violation was caught"
