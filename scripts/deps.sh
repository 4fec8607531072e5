#!/usr/bin/env bash
# Installs what docgate needs to build, test and run, from Debian's archive only.
# Idempotent: packages already present are not touched, and apt is not called at all when
# nothing is missing.
set -euo pipefail

packages=(
  build-essential cmake pkg-config curl ca-certificates ccache
  libboost-dev libsqlite3-dev nlohmann-json3-dev libspdlog-dev libcli11-dev libjwt-dev
  libssl-dev uuid-dev libgtest-dev libgmock-dev libbenchmark-dev librapidcheck-dev
  libpqxx-dev libpq-dev postgresql python3 jq
  redis-server libhiredis-dev openssl python3-redis haproxy
  rabbitmq-server librabbitmq-dev
  libmongoc-dev libbson-dev
  python3-jsonschema
  libicu-dev libstemmer-dev libcmark-gfm-dev libcmark-gfm-extensions-dev
  libfaiss-dev libomp-14-dev
  clang-14 libclang-rt-14-dev clang-format-14
  chromium fonts-noto-cjk
  pandoc poppler-utils qpdf libzip-dev
)
# The console's browser tests run on Node (18 or later) and npm; a machine with its own Node (and
# the npm that comes with it) keeps it.
if ! command -v node >/dev/null; then packages+=(nodejs); fi
if ! command -v npm >/dev/null; then packages+=(npm); fi
# rabbitmq-server's postinst may start a system node (5672, 25672, epmd on 4369) where services
# are allowed to start. It is left alone: the test node (scripts/services.sh) has its own ports,
# epmd, node name and data, and neither uses nor disturbs it.

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "deps.sh: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
