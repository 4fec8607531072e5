// The composition root: command line + environment -> Config -> Application (or a one-shot
// command). Nothing else lives here.

#include <pthread.h>
#include <signal.h>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "adapters/amqp/event_message.h"
#include "adapters/http/jwt_auth.h"
#include "app/system_clock.h"
#include "core/redact.h"
#include "core/time_format.h"
#include "runtime/application.h"
#include "runtime/config.h"
#include "runtime/config_reference.h"
#include "runtime/config_table.h"
#include "runtime/consumer_pipeline.h"
#include "runtime/log_line_formatter.h"
#include "runtime/log_redaction.h"
#include "runtime/operator_commands.h"

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

// Blocked before any thread starts, so that every thread inherits the mask and only sigwait
// (WaitForStop) sees SIGINT/SIGTERM.
sigset_t BlockStopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

void WaitForStop(const sigset_t& signals) {
  int signal_number = 0;
  sigwait(&signals, &signal_number);
  spdlog::info("docgate: {} received, finishing in-flight work", strsignal(signal_number));
}

int Serve(const Config& config) {
  const sigset_t signals = BlockStopSignals();
  Application app(config);
  app.Start();
  spdlog::info("docgate: serving http://{}:{} (database {})", config.http.address, app.port(),
               RedactUrl(config.database.url));
  WaitForStop(signals);
  app.Stop();
  spdlog::info("docgate: stopped");
  return 0;
}

int Work(const Config& config) {
  if (config.amqp.url.empty() || config.amqp.queue.empty()) {
    throw ConfigError(
        "docgate worker consumes the broker's queue: set DOCGATE_AMQP_URL and DOCGATE_AMQP_QUEUE "
        "(without a broker, docgate serve consumes events in process)");
  }
  const sigset_t signals = BlockStopSignals();
  const Stores stores = OpenStores(config);
  SystemClock clock;
  ConsumerPipeline pipeline(config, stores, clock, nullptr);
  pipeline.Start();
  spdlog::info("docgate: worker consuming {} (database {})", config.amqp.queue,
               RedactUrl(config.database.url));
  WaitForStop(signals);
  pipeline.Stop();
  spdlog::info("docgate: stopped");
  return 0;
}

int PrintParked(const Config& config, int limit) {
  for (const ParkedEvent& parked : ListParkedEvents(config, limit)) {
    std::cout << nlohmann::json{{"consumer", parked.consumer},
                                {"event", nlohmann::json::parse(EncodeEventBody(parked.event))},
                                {"attempts", parked.attempts},
                                {"last_error", parked.last_error},
                                {"parked_at", FormatTime(parked.parked_at)}}
                     .dump()
              << "\n";
  }
  return 0;
}

int Replay(const Config& config, const std::string& event_id) {
  const ReplayReport report = ReplayParkedEvents(
      config, event_id.empty() ? std::nullopt : std::optional<std::string>(event_id));
  std::cout << "docgate: un-parked " << report.unparked << " event(s); " << report.from_queue
            << " moved back from the parking queue, " << report.requeued
            << " re-enqueued through the outbox\n";
  return 0;
}

// Where the console of this configuration answers: the address `serve` listens on with the same
// environment and flags (--listen, else DOCGATE_LISTEN), as a URL. A wildcard address is no
// address a browser can open; the same machine's loopback is.
std::string ConsoleUrl(const HttpConfig& http) {
  std::string host = http.address;
  if (host == "0.0.0.0") host = "127.0.0.1";
  if (host == "::") host = "::1";
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  return "http://" + host + ":" + std::to_string(http.port) + "/";
}

int PrintToken(const Config& config, const std::string& subject, const std::string& roles,
               const std::string& name, long ttl_seconds, bool console_link,
               std::string console_url) {
  if (auto problem = SubjectProblem(subject)) throw ConfigError("--sub: " + *problem);
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
  const std::string token =
      SignHs256Token(SplitJwtSecrets(ReadJwtSecret(config)).value().front(), claims, now);
  if (!console_link) {
    std::cout << token << "\n";
    return 0;
  }
  // The token rides in the fragment, which browsers never send to a server (nor in a Referer);
  // the console moves it to sessionStorage and out of the address bar.
  if (console_url.empty()) console_url = ConsoleUrl(config.http);
  if (!console_url.ends_with('/')) console_url += '/';
  std::cout << console_url << "#token=" << token << "\n";
  return 0;
}

// The error that stops a command, on stderr whatever DOCGATE_LOG_LEVEL says: as a JSON line of
// the log, or as plain text for the terminal.
void PrintError(LogFormat format, const std::string& message) {
  if (format == LogFormat::kText) {
    std::cerr << "docgate: " << message << "\n";
    return;
  }
  LogLineFormatter formatter(format, nullptr);
  spdlog::memory_buf_t line;
  formatter.format(spdlog::details::log_msg("docgate", spdlog::level::err, "docgate: " + message),
                   line);
  std::cerr.write(line.data(), static_cast<std::streamsize>(line.size()));
}

}  // namespace

int main(int argc, char** argv) {
  // Logs go to stderr: stdout carries command output (`docgate token`).
  spdlog::set_default_logger(spdlog::stderr_color_mt("docgate"));
  CLI::App cli{"docgate: the review gate of a knowledge base"};
  cli.require_subcommand(1);

  std::string listen;
  std::string database_url;
  auto* serve =
      cli.add_subcommand("serve", "serve the HTTP API (settings from DOCGATE_* variables)");
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
  token->add_option("--listen", listen,
                    "where `serve --listen` listens, for the --console link (overrides "
                    "DOCGATE_LISTEN)");
  bool console_link = false;
  std::string console_url;
  token->add_flag("--console", console_link,
                  "print a sign-in link to the console instead (the token in its fragment)");
  token
      ->add_option("--console-url", console_url,
                   "the console's address for --console (default: http://HOST:PORT/ of --listen, "
                   "else of DOCGATE_LISTEN, as `serve` resolves it)")
      ->check([](const std::string& url) {
        return url.starts_with("http://") || url.starts_with("https://")
                   ? std::string()
                   : std::string("--console-url must start with http:// or https://");
      });

  auto* migrate = cli.add_subcommand("migrate", "apply pending database migrations and exit");
  migrate->add_option("--database-url", database_url, "overrides DOCGATE_DATABASE_URL");

  auto* worker = cli.add_subcommand(
      "worker", "consume events from the broker's queue (needs DOCGATE_AMQP_URL) until SIGTERM");
  worker->add_option("--database-url", database_url, "overrides DOCGATE_DATABASE_URL");

  auto* events = cli.add_subcommand("events", "inspect and replay events consumers gave up on");
  events->require_subcommand(1);
  int parked_limit = 100;
  auto* parked = events->add_subcommand("parked", "print parked events, one JSON object a line");
  parked->add_option("--limit", parked_limit, "at most this many (default 100)")
      ->check(CLI::Range(1, 100000));
  std::string replay_event_id;
  auto* replay = events->add_subcommand(
      "replay", "un-park parked events and deliver them to their consumers again");
  replay->add_option("--event-id", replay_event_id, "only this event (default: every parked one)");
  for (auto* command : {parked, replay}) {
    command->add_option("--database-url", database_url, "overrides DOCGATE_DATABASE_URL");
  }

  auto* reconcile = cli.add_subcommand(
      "reconcile", "re-enqueue approved versions whose ingestion is missing or stuck, once");
  reconcile->add_option("--database-url", database_url, "overrides DOCGATE_DATABASE_URL");

  auto* reference = cli.add_subcommand(
      "config-reference", "print the DOCGATE_* variables as Markdown (docs/configuration.md)");

  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = cli.exit(e);
    return code == 0 ? 0 : kStartupFailure;
  }

  if (reference->parsed()) {
    std::cout << ConfigReference();
    return 0;
  }

  // One format for every line, the first included: the configuration's (LoadConfig refuses a
  // value LogFormatOf takes for unset).
  const char* format_setting = std::getenv("DOCGATE_LOG_FORMAT");
  const LogFormat log_format = LogFormatOf(format_setting == nullptr ? "" : format_setting);
  RedactLogLines(*spdlog::default_logger(), {}, log_format);
  // Before the configuration is read: a misspelt variable is the likely cause of its error.
  for (const std::string& warning : UnknownVariableWarnings(ProcessEnvironmentNames())) {
    spdlog::warn("docgate: {}", warning);
  }
  try {
    const Config config = ConfigFrom(listen, database_url);
    ValidateConfig(config);
    RedactLogLines(*spdlog::default_logger(), SecretsOf(config), log_format);
    spdlog::set_level(spdlog::level::from_str(config.log.level));
    if (serve->parsed()) return Serve(config);
    if (token->parsed()) {
      return PrintToken(config, subject, roles, name, ttl_seconds, console_link, console_url);
    }
    if (worker->parsed()) return Work(config);
    if (parked->parsed()) return PrintParked(config, parked_limit);
    if (replay->parsed()) return Replay(config, replay_event_id);
    if (reconcile->parsed()) {
      std::cout << "docgate: re-enqueued " << ReconcileOnce(config)
                << " approval event(s) whose ingestion was missing or stuck\n";
      return 0;
    }
    if (migrate->parsed()) {
      ApplyMigrations(config);
      std::cout << "docgate: migrations applied to " << RedactUrl(config.database.url) << "\n";
      return 0;
    }
  } catch (const std::exception& e) {
    // A library's message may quote a URL whole; none of its passwords reaches
    // the terminal.
    std::string message = e.what();
    for (const ConfigVariable& variable : ConfigVariables()) {
      if (variable.type != ConfigType::kUrl) continue;
      if (const char* url = std::getenv(std::string(variable.name).c_str()))
        message = RedactSecretsOf(message, url);
    }
    PrintError(log_format, RedactSecretsOf(message, database_url));
    return kStartupFailure;
  }
  return kStartupFailure;
}
