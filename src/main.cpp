// The composition root: command line + environment -> Config -> Application (or a one-shot
// command). Nothing else lives here.

#include <pthread.h>
#include <signal.h>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstring>
#include <exception>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "adapters/crypto/openssl_random.h"
#include "adapters/http/jwt_auth.h"
#include "app/clock.h"
#include "runtime/application.h"
#include "runtime/config.h"

namespace {

using namespace docgate;

constexpr int kStartupFailure = 2;

// Flags win over the environment.
Config ConfigFrom(const std::string& listen, const std::string& database_url) {
  std::map<std::string, std::string, std::less<>> overrides;
  if (!listen.empty()) overrides["DOCGATE_LISTEN"] = listen;
  if (!database_url.empty()) overrides["DOCGATE_DATABASE_URL"] = database_url;
  return LoadConfig(WithOverrides(ProcessEnvironment(), std::move(overrides)));
}

int Serve(const Config& config) {
  // Blocked before any thread starts, so that every thread inherits the mask and only sigwait
  // below sees SIGINT/SIGTERM.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  Application app(config);
  app.Start();
  spdlog::info("docgate: serving http://{}:{} (database {})", config.http.address, app.port(),
               config.database.url);
  int signal_number = 0;
  sigwait(&signals, &signal_number);
  spdlog::info("docgate: {} received, finishing in-flight requests", strsignal(signal_number));
  app.Stop();
  spdlog::info("docgate: stopped");
  return 0;
}

int PrintToken(const Config& config, const std::string& subject, const std::string& roles,
               const std::string& name, long ttl_seconds) {
  TokenClaims claims;
  claims.subject = subject;
  std::stringstream list(roles);
  for (std::string role; std::getline(list, role, ',');) {
    if (role != "author" && role != "reviewer" && role != "admin") {
      throw ConfigError("--roles takes author, reviewer and/or admin separated by commas, got '" +
                        role + "'");
    }
    claims.roles.push_back(role);
  }
  if (!name.empty()) claims.name = name;
  SystemClock clock;
  const TimePoint now = clock.Now();
  claims.expires_at = now + std::chrono::seconds{ttl_seconds};
  OpenSslRandom random;
  std::cout << SignHs256Token(ResolveJwtSecret(config, random), claims, now) << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Logs go to stderr: stdout carries command output (`docgate token`).
  spdlog::set_default_logger(spdlog::stderr_color_mt("docgate"));
  CLI::App cli{"docgate: the review gate of a knowledge base"};
  cli.require_subcommand(1);

  std::string listen;
  std::string database_url;
  auto* serve = cli.add_subcommand("serve", "serve the HTTP API (settings from DOCGATE_* variables)");
  serve->add_option("--listen", listen, "HOST:PORT to listen on (overrides DOCGATE_LISTEN)");
  serve->add_option("--database-url", database_url, "overrides DOCGATE_DATABASE_URL");

  std::string subject;
  std::string roles;
  std::string name;
  long ttl_seconds = 86400;
  auto* token = cli.add_subcommand("token", "print a signed bearer token (HS256)");
  token->add_option("--sub", subject, "user id")->required();
  token->add_option("--roles", roles, "author, reviewer and/or admin, comma-separated")->required();
  token->add_option("--name", name, "display name");
  token->add_option("--ttl-seconds", ttl_seconds, "lifetime in seconds (default 86400)")
      ->check(CLI::Range(1L, 10L * 365 * 86400));
  token->add_option("--database-url", database_url, "overrides DOCGATE_DATABASE_URL");

  auto* migrate = cli.add_subcommand("migrate", "apply pending database migrations and exit");
  migrate->add_option("--database-url", database_url, "overrides DOCGATE_DATABASE_URL");

  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = cli.exit(e);
    return code == 0 ? 0 : kStartupFailure;
  }

  try {
    const Config config = ConfigFrom(listen, database_url);
    ValidateConfig(config);
    spdlog::set_level(spdlog::level::from_str(config.log.level));
    if (serve->parsed()) return Serve(config);
    if (token->parsed()) return PrintToken(config, subject, roles, name, ttl_seconds);
    if (migrate->parsed()) {
      ApplyMigrations(config);
      std::cout << "docgate: migrations applied to " << config.database.url << "\n";
      return 0;
    }
  } catch (const std::exception& e) {
    std::cerr << "docgate: " << e.what() << "\n";
    return kStartupFailure;
  }
  return kStartupFailure;
}
