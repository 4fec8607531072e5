// Invariant: ParsePgUrl (adapters/pg/pg_conninfo.h, libpq's PQconninfoParse) reads any text and
// throws nothing but StorageUnavailable, whose message never echoes the password of a URL written
// by the rules (the message is the same whatever the password's letters: fuzz_support.h
// DistinctivePassword). For a URL it reads,
// BuildPgConnInfo writes a conninfo that PQconninfoParse reads back as exactly the URL's
// parameters (the quoting loses nothing) with the timeouts and defaults added, and
// DescribePgTarget never shows the password.
// Input: the URL (postgresql://..., or key=value conninfo; the password checks take only URLs,
// as the configuration admits no other).

#include <libpq-fe.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "adapters/pg/pg_conninfo.h"
#include "core/error.h"
#include "fuzz_support.h"

namespace {

using docgate::fuzz::AsText;
using docgate::fuzz::ErrorOf;
using docgate::fuzz::WithoutEitherPassword;
using Params = std::map<std::string, std::string>;

// What PQconninfoParse reads in `conninfo`; nullopt when it refuses it.
std::optional<Params> Reparse(const std::string& conninfo) {
  PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), nullptr);
  if (options == nullptr) return std::nullopt;
  Params params;
  for (const PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
    if (o->val != nullptr && *o->val != '\0') params[o->keyword] = o->val;
  }
  PQconninfoFree(options);
  return params;
}

void CheckConnInfo(const Params& params) {
  const docgate::PgConfig config;  // 5 s connect and statement timeouts
  const std::string conninfo = docgate::BuildPgConnInfo(params, config);
  const auto read = Reparse(conninfo);
  FUZZ_CHECK(read.has_value(), conninfo);
  for (const auto& [keyword, value] : params) {
    if (keyword == "connect_timeout" || keyword == "options") continue;
    const auto it = read->find(keyword);
    FUZZ_CHECK(it != read->end() && it->second == value, conninfo);
  }
  FUZZ_CHECK(read->at("connect_timeout") == "5", conninfo);
  const auto options = params.find("options");
  const std::string expected_options =
      (options == params.end() ? "" : options->second + " ") + "-c statement_timeout=5000";
  FUZZ_CHECK(read->at("options") == expected_options, conninfo);
  for (const char* added : {"tcp_user_timeout", "keepalives_idle", "keepalives_interval",
                            "keepalives_count", "application_name"}) {
    FUZZ_CHECK(read->contains(added), conninfo);
  }
  FUZZ_CHECK(read->size() <= params.size() + 7, conninfo);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string url(AsText(data, size));
  std::optional<Params> params;
  const auto error =
      ErrorOf<docgate::StorageUnavailable>([&] { params = docgate::ParsePgUrl(url); });
  if (params) CheckConnInfo(*params);

  // Only URLs reach ParsePgUrl from the configuration (runtime/config.h IsPostgresUrl).
  const bool is_url = url.starts_with("postgresql://") || url.starts_with("postgres://");
  const auto password = docgate::fuzz::DistinctivePassword(url);
  if (is_url && password) {
    const std::string other_url = docgate::fuzz::WithOtherPassword(url, *password);
    std::optional<Params> other;
    const auto other_error =
        ErrorOf<docgate::StorageUnavailable>([&] { other = docgate::ParsePgUrl(other_url); });
    FUZZ_CHECK(error.has_value() == other_error.has_value(), other_url);
    if (error) {
      FUZZ_CHECK(WithoutEitherPassword(*error, url, *password) ==
                     WithoutEitherPassword(*other_error, url, *password),
                 *error + " | " + *other_error);
    }
    if (params) {
      FUZZ_CHECK(docgate::DescribePgTarget(*params) == docgate::DescribePgTarget(*other),
                 docgate::DescribePgTarget(*params));
    }
  }
  return 0;
}
