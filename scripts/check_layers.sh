#!/usr/bin/env bash
# Checks the dependency rule of shared/CONVENTIONS.md on the #include lines under src/:
#   core <- app <- adapters/*, worker <- runtime, main
# Usage: scripts/check_layers.sh [ROOT]   (ROOT: the tree whose src/ is checked; default: this repo)
# Exit 0 when every include is allowed; 1 with one line per offending include, as
# `file:line: #include ...: reason`; 2 on a usage error.
#
# The rules:
#  1. src/core/ includes only the C++ standard library (an <name> without '.' or '/') and core/.
#  2. src/app/ includes only the C++ standard library, core/ and app/ (and the libraries of
#     app_libraries below: ICU and Snowball, for the text analyzer; cmark-gfm, for the Markdown
#     chunker; a library without I/O may join it, by review).
#  3. In both, none of these (named in the message, so that the reason is plain even where rule 1
#     or 2 also refuses the header):
#       boost/ (Asio, Beast, ...)          pqxx/, libpq-fe.h, postgresql/ (PostgreSQL)
#       sqlite3.h (SQLite)                 hiredis/ (Redis)
#       amqp*.h, rabbitmq-c/ (RabbitMQ)    mongoc/, bson/, mongoc.h, bson.h (MongoDB)
#       nlohmann/ (JSON)                   spdlog/ (logging)
#       curl/ (HTTP client)                openssl/, jwt.h (TLS, crypto, JWT)
#       sys/socket.h, netinet/, arpa/, netdb.h, sys/epoll.h, poll.h (sockets)
#       fcntl.h, unistd.h, sys/stat.h, <fstream>, <iostream>, <filesystem> (files and the console)
#     <sstream> (strings) and <cstdio> (snprintf) stay allowed.
#  2a. src/app/ports/ (the contracts, one port per header) includes, of the project, only core/
#     and app/ports/, and app/search_query.h, the query the chunk index answers: a contract does
#     not depend on the services and algorithms of app/ that use it.
#  4. src/adapters/X/ includes no other adapter (adapters/Y/, Y != X), no worker/ and no runtime/;
#     but adapters/pg/ and adapters/sqlite/ include adapters/sql/ (the statements both run alike),
#     which includes only the C++ standard library; adapters/openai/ and adapters/oidc/ include
#     adapters/web/ (the outbound HTTP client they share), which includes no other adapter.
#  5. src/worker/ includes no adapters/ and no runtime/.
# src/runtime/ and src/main.cpp compose everything and may include anything. Generated headers
# and third-party headers outside core and app are not this script's business.
set -euo pipefail

root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
if [ $# -gt 1 ] || [ ! -d "$root/src" ]; then
  echo "usage: $0 [ROOT]  (ROOT/src must exist)" >&2
  exit 2
fi
cd "$root"

# The I/O libraries of rule 3: an extended regex on the header name, then its label.
io_headers=(
  '^boost/'                                  'Boost: Asio, Beast, ...'
  '^(pqxx/|libpq-fe\.h$|postgresql/)'       'PostgreSQL: libpqxx, libpq'
  '^sqlite3\.h$'                             'SQLite'
  '^hiredis/'                                'Redis: hiredis'
  '^(amqp[a-z_]*\.h$|rabbitmq-c/)'          'RabbitMQ: rabbitmq-c'
  '^(mongoc|bson)(/|\.h$)'                   'MongoDB: libmongoc, libbson'
  '^nlohmann/'                               'JSON: nlohmann'
  '^spdlog/'                                 'logging: spdlog'
  '^curl/'                                   'HTTP client: curl'
  '^(openssl/|jwt\.h$)'                      'TLS and crypto: OpenSSL, libjwt'
  '^(sys/socket\.h|netinet/|arpa/|netdb\.h|sys/epoll\.h|poll\.h)' 'sockets'
  '^(fcntl\.h|unistd\.h|sys/stat\.h|fstream|iostream|filesystem)$' 'files and the console'
)

# Rule 2's exceptions: extended regexes on header names app/ may include besides the standard
# library (e.g. '^tl/expected\.hpp$'). Never an I/O library: rule 3 is checked first.
# ICU (unicode/: segmentation, normalisation) and Snowball (libstemmer.h) for the text analyzer;
# cmark-gfm (cmark-gfm*.h: CommonMark and its GFM extensions) for the Markdown chunker.
app_libraries=('^unicode/' '^libstemmer\.h$' '^cmark-gfm(-core-extensions)?\.h$')

violations=()
report() {  # file line text reason
  violations+=("$1:$2: $3: $4")
}

app_library() {  # header -> success when app_libraries allows it
  local pattern
  for pattern in ${app_libraries[@]+"${app_libraries[@]}"}; do
    [[ $1 =~ $pattern ]] && return 0
  done
  return 1
}

io_library() {  # header -> sets label to the library's label of rule 3, or to nothing
  local i
  label=
  for ((i = 0; i < ${#io_headers[@]}; i += 2)); do
    if [[ $1 =~ ${io_headers[i]} ]]; then
      label=${io_headers[i + 1]}
      return
    fi
  done
}

# Every #include under src/: file, line, the include's text, its delimiter and the header.
includes() {
  grep -rnE --include='*.h' --include='*.cpp' --include='*.hpp' --include='*.cc' \
    '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' src |
    sed -E 's/^([^:]+):([0-9]+):[[:space:]]*(#[[:space:]]*include[[:space:]]*([<"])([^>"]*)[>"]).*$/\1|\2|\3|\4|\5/'
}

while IFS='|' read -r file line text delimiter header; do
  layer=${file#src/}
  layer=${layer%%/*}
  case $layer in
    core | app)
      if [ "$delimiter" = '<' ]; then
        io_library "$header"
        if [ -n "$label" ]; then
          report "$file" "$line" "$text" "$layer/ includes no I/O library ($label): I/O belongs in adapters/"
        elif [[ $header == */* || $header == *.* ]] && ! { [ "$layer" = app ] && app_library "$header"; }; then
          report "$file" "$line" "$text" "$layer/ includes the C++ standard library only"
        fi
      else
        case $file in
          src/app/ports/*)
            case $header in
              core/* | app/ports/* | app/search_query.h) ;;
              *) report "$file" "$line" "$text" "app/ports/ includes only core/ and app/ports/: a contract depends on no service" ;;
            esac
            continue
            ;;
        esac
        case $layer/$header in
          core/core/* | app/core/* | app/app/*) ;;
          core/*) report "$file" "$line" "$text" "core/ includes only core/" ;;
          *) report "$file" "$line" "$text" "app/ includes only core/ and app/" ;;
        esac
      fi
      ;;
    adapters)
      adapter=${file#src/adapters/}
      adapter=${adapter%%/*}
      if [ "$adapter" = sql ]; then
        [ "$delimiter" = '<' ] && [[ $header != */* && $header != *.* ]] && continue
        report "$file" "$line" "$text" "adapters/sql/ includes the C++ standard library only"
        continue
      fi
      [ "$delimiter" = '"' ] || continue
      case $header in
        adapters/"$adapter"/*) ;;
        adapters/sql/*)
          case $adapter in
            pg | sqlite) ;;
            *) report "$file" "$line" "$text" "adapters/sql/ is for adapters/pg/ and adapters/sqlite/ only" ;;
          esac
          ;;
        adapters/web/*)
          case $adapter in
            openai | oidc) ;;
            *) report "$file" "$line" "$text" "adapters/web/ is for adapters/openai/ and adapters/oidc/ only" ;;
          esac
          ;;
        adapters/*)
          report "$file" "$line" "$text" "adapters/$adapter/ includes another adapter: adapters never include each other"
          ;;
        worker/* | runtime/*)
          report "$file" "$line" "$text" "adapters/ include core/, app/ and their own folder, not ${header%%/*}/"
          ;;
      esac
      ;;
    worker)
      [ "$delimiter" = '"' ] || continue
      case $header in
        adapters/* | runtime/*)
          report "$file" "$line" "$text" "worker/ includes core/, app/ and worker/, not ${header%%/*}/"
          ;;
      esac
      ;;
  esac
done < <(includes)

if [ ${#violations[@]} -gt 0 ]; then
  echo "check_layers: ${#violations[@]} include(s) break the dependency rule" \
    "(core <- app <- adapters/*, worker; see scripts/check_layers.sh):" >&2
  printf '  %s\n' "${violations[@]}" >&2
  exit 1
fi
echo "check_layers: every include under $root/src follows the dependency rule"
