#include "adapters/pg/pg_conninfo.h"

#include <libpq-fe.h>

#include <algorithm>
#include <cstdint>

#include "core/error.h"
#include "core/redact.h"

namespace docgate {
namespace {

std::int64_t CeilSeconds(std::chrono::milliseconds ms) { return (ms.count() + 999) / 1000; }

// libpq keyword/value syntax: single quotes, with ' and \ escaped.
std::string Quote(const std::string& value) {
  std::string quoted = "'";
  for (char c : value) {
    if (c == '\'' || c == '\\') quoted.push_back('\\');
    quoted.push_back(c);
  }
  quoted.push_back('\'');
  return quoted;
}

}  // namespace

std::map<std::string, std::string> ParsePgUrl(const std::string& url) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(url.c_str(), &error);
  if (options == nullptr) {
    std::string reason = error != nullptr ? error : "out of memory";
    PQfreemem(error);
    while (!reason.empty() && (reason.back() == '\n' || reason.back() == ' ')) reason.pop_back();
    throw StorageUnavailable("postgres: malformed database URL: " + RedactSecretsOf(reason, url));
  }
  std::map<std::string, std::string> params;
  for (const PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
    if (o->val != nullptr && *o->val != '\0') params[o->keyword] = o->val;
  }
  PQconninfoFree(options);
  return params;
}

// The statement timeout travels as a startup option so that it holds on every connection libpq
// (re)opens; the TCP settings bound how long a vanished server can keep a call waiting.
std::string BuildPgConnInfo(std::map<std::string, std::string> params, const PgConfig& config) {
  params["connect_timeout"] =
      std::to_string(std::max<std::int64_t>(1, CeilSeconds(config.connect_timeout)));
  std::string& options = params["options"];
  if (!options.empty()) options += ' ';
  options += "-c statement_timeout=" + std::to_string(config.statement_timeout.count());
  const std::int64_t user_timeout_ms =
      config.connect_timeout.count() + config.statement_timeout.count();
  params.try_emplace("tcp_user_timeout", std::to_string(user_timeout_ms));
  params.try_emplace("keepalives_idle", std::to_string(std::max<std::int64_t>(
                                            1, CeilSeconds(config.statement_timeout))));
  params.try_emplace("keepalives_interval", "1");
  params.try_emplace("keepalives_count", "3");
  params.try_emplace("application_name", "docgate");
  std::string conninfo;
  for (const auto& [keyword, value] : params) {
    if (!conninfo.empty()) conninfo += ' ';
    conninfo += keyword + '=' + Quote(value);
  }
  return conninfo;
}

std::string DescribePgTarget(const std::map<std::string, std::string>& params) {
  const auto get = [&](const char* key, const char* fallback) {
    const auto it = params.find(key);
    return it == params.end() ? std::string(fallback) : it->second;
  };
  const std::string host = get("host", get("hostaddr", "local socket").c_str());
  return host + ":" + get("port", "5432") + "/" + get("dbname", get("user", "").c_str());
}

}  // namespace docgate
