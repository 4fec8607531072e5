#!/usr/bin/env bash
# Runs the README's walkthrough, as pasted, against a real `docgate serve` in a fresh directory,
# then stops the server with SIGTERM: the walkthrough must end with an approved document, a preview
# and a search hit, then a revision approved and searched (in Chinese too), and the server must exit 0.
#   readme_walkthrough_test.sh <docgate binary> <README.md>
set -euo pipefail
binary=$(realpath "$1")
readme=$(realpath "$2")
work=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill -KILL "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
mkdir build
ln -s "$binary" build/docgate  # the README runs ./build/docgate from the repository root
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

DOCGATE_LISTEN=127.0.0.1:$port DOCGATE_LOG_LEVEL=warn ./build/docgate serve &
pid=$!
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break
  sleep 0.1
done

# The first ```sh block after the walkthrough heading, pointed at this server's port.
awk '/^## Walkthrough/ {found = 1} found && /^```sh/ {inside = 1; next} inside && /^```/ {exit} inside' \
  "$readme" | sed "s/127\.0\.0\.1:8080/127.0.0.1:$port/g" >walkthrough.sh
[ -s walkthrough.sh ] || { echo "no walkthrough found in $readme"; exit 1; }
# Bounded: the walkthrough waits for ingestion, which must not hang the suite if it never comes.
timeout 60 bash -euo pipefail walkthrough.sh >out.txt 2>&1 || { cat out.txt; echo "walkthrough failed"; exit 1; }

grep -q '"code":"INVALID_STATE"' out.txt || { cat out.txt; echo "second submit was not refused"; exit 1; }
grep -q '"status": "approved"' out.txt || { cat out.txt; echo "no approved document"; exit 1; }
grep -q '"content": "Welcome aboard.' out.txt || { cat out.txt; echo "no preview"; exit 1; }
grep -q '"snippet": ".*Welcome' out.txt || { cat out.txt; echo "no search hit"; exit 1; }
grep -q '^{"status":"draft","version":2,"approved_version":1}$' out.txt \
  || { cat out.txt; echo "the edit did not start a revision"; exit 1; }
grep -q '^{"mode":"keyword","hit":{"snippet":"欢迎加入。\\n\\n先读这一页，再申请 VPN 账号。","highlights":\[\[14,16\]\]}}$' out.txt \
  || { cat out.txt; echo "the Chinese search did not find 申请 in its sentence"; exit 1; }
grep -q '^{"version":1}$' out.txt || { cat out.txt; echo "the preview left version 1"; exit 1; }
grep -q '^{"version":2,"edited_by":"alice","review_status":"pending"}$' out.txt \
  || { cat out.txt; echo "no version 2 under review in the history"; exit 1; }
grep -q '^{"version":1,"edited_by":"alice","review_status":"approved"}$' out.txt \
  || { cat out.txt; echo "no approved version 1 in the history"; exit 1; }
grep -q '^{"status":"approved","version":2,"approved_version":2}$' out.txt \
  || { cat out.txt; echo "the revision was not approved"; exit 1; }
grep -q '^{"version":2,"snippet":".*VPN' out.txt || { cat out.txt; echo "search did not move to version 2"; exit 1; }

kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid=
[ "$status" -eq 0 ] || { echo "docgate exited $status after SIGTERM, expected 0"; exit 1; }
echo "walkthrough ok, SIGTERM exit 0"
