#pragma once

// A database of its own for one PostgreSQL test, on the server of DOCGATE_TEST_PG_URL (which `make
// test` always sets: a missing URL is a failure, never a skip).

#include <chrono>
#include <cstdlib>
#include <pqxx/pqxx>
#include <random>
#include <stdexcept>
#include <string>

#include "adapters/pg/pg_config.h"

namespace docgate {

// DOCGATE_TEST_PG_URL; throws (failing the test that asked) when it is not set.
inline std::string TestPgUrl() {
  const char* url = std::getenv("DOCGATE_TEST_PG_URL");
  if (url == nullptr || *url == '\0') {
    throw std::runtime_error(
        "DOCGATE_TEST_PG_URL is not set: run `make test`, or start a server with "
        "`eval \"$(bash scripts/services.sh start)\"` first");
  }
  return url;
}

// `url` (postgresql://user@host:port/db?params) with its database replaced.
inline std::string WithDatabase(const std::string& url, const std::string& database) {
  const auto authority = url.find("://");
  if (authority == std::string::npos) throw std::runtime_error("not a URI: " + url);
  const auto path = url.find_first_of("/?", authority + 3);
  const auto query = url.find('?', authority + 3);
  return url.substr(0, path) + "/" + database +
         (query == std::string::npos ? "" : url.substr(query));
}

// `url` with its host:port replaced.
inline std::string WithHostPort(const std::string& url, const std::string& host_port) {
  const auto authority = url.find("://") + 3;
  const auto end = url.find_first_of("/?", authority);
  const auto at = url.find('@', authority);
  const auto host = at != std::string::npos && at < end ? at + 1 : authority;
  return url.substr(0, host) + host_port + (end == std::string::npos ? "" : url.substr(end));
}

// CREATE DATABASE docgate_t_<random> at construction, DROP ... WITH (FORCE) at destruction.
class PgTestDatabase {
 public:
  PgTestDatabase()
      : admin_url_(TestPgUrl()), name_(RandomName()), url_(WithDatabase(admin_url_, name_)) {
    pqxx::connection admin(admin_url_);
    pqxx::nontransaction tx(admin);
    tx.exec("CREATE DATABASE " + tx.quote_name(name_));
  }
  PgTestDatabase(const PgTestDatabase&) = delete;
  PgTestDatabase& operator=(const PgTestDatabase&) = delete;
  ~PgTestDatabase() {
    try {
      pqxx::connection admin(admin_url_);
      pqxx::nontransaction tx(admin);
      tx.exec("DROP DATABASE IF EXISTS " + tx.quote_name(name_) + " WITH (FORCE)");
    } catch (const std::exception&) {
      // A leftover database in a throwaway cluster is harmless; a throwing destructor is not.
    }
  }

  const std::string& name() const { return name_; }
  const std::string& url() const { return url_; }

  PgConfig Config() const {
    PgConfig config;
    config.url = url_;
    return config;
  }

  // Runs `sql` on this database over a connection of its own, outside any store.
  pqxx::result Execute(const std::string& sql) const {
    pqxx::connection connection(url_);
    pqxx::nontransaction tx(connection);
    return tx.exec(sql);
  }
  std::int64_t Count(const std::string& sql) const { return Execute(sql)[0][0].as<std::int64_t>(); }

 private:
  static std::string RandomName() {
    std::random_device device;
    std::uniform_int_distribution<unsigned> nibble(0, 15);
    std::string name = "docgate_t_";
    for (int i = 0; i < 16; ++i) name.push_back("0123456789abcdef"[nibble(device)]);
    return name;
  }

  std::string admin_url_;
  std::string name_;
  std::string url_;
};

}  // namespace docgate
