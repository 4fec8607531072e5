#pragma once

// The pure part of opening PostgreSQL connections: reading the configured URL with libpq's own
// parser and writing the conninfo string every connection is opened with. No I/O.

#include <map>
#include <string>

#include "adapters/pg/pg_config.h"

namespace docgate {

// The parameters of `url` (a libpq URI such as postgresql://user:pass@host:port/db?sslmode=require,
// or key=value conninfo) as PQconninfoParse reads them, keyword -> value; keywords without a value
// are left out. Throws StorageUnavailable when libpq refuses it, with libpq's reason and every
// password the URL carries (RedactSecretsOf) replaced by "***". Resolves and connects to nothing.
std::map<std::string, std::string> ParsePgUrl(const std::string& url);

// The keyword='value' conninfo of `params` plus the timeouts of `config`: connect_timeout (whole
// seconds, at least 1) replaces the URL's, `-c statement_timeout=<ms>` is appended to `options`,
// and tcp_user_timeout, keepalives_* and application_name are added unless the URL sets them.
// Values are single-quoted with ' and \ escaped, so PQconninfoParse reads back exactly `params`
// with these additions.
std::string BuildPgConnInfo(std::map<std::string, std::string> params, const PgConfig& config);

// "host:port/database" of `params`, for messages (never the password): host, else hostaddr, else
// "local socket"; port 5432 by default; the database, else the user name.
std::string DescribePgTarget(const std::map<std::string, std::string>& params);

}  // namespace docgate
