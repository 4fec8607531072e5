// End-to-end: the docgate binary's own command line and output. `docgate token --console` links
// to where `docgate serve` listens with the same environment and flags; with
// DOCGATE_LOG_FORMAT=json every line a process logs (start-up, warnings, requests, errors) is one
// JSON object, and with `text` none is.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "e2e/docgate_process.h"
#include "support/build_paths.h"
#include "support/temp_dir.h"

extern char** environ;

namespace docgate {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

constexpr const char* kCliJwtSecret = "cli-e2e-jwt-secret-5b0f4c2a9e7d1368";

// `docgate args...` as a child whose stdout and stderr go to files of its own folder. Its
// environment is this process's without the DOCGATE_* variables of docgate itself (the tests'
// DOCGATE_TEST_* stay), plus a SQLite database and a JWT secret, plus `env`.
class CliProcess {
 public:
  CliProcess(const std::vector<std::string>& args, const std::map<std::string, std::string>& env) {
    std::map<std::string, std::string> all = {
        {"DOCGATE_DATABASE_URL", "sqlite://" + (dir_.path() / "docgate.db").string()},
        {"DOCGATE_JWT_SECRET", kCliJwtSecret}};
    for (const auto& [name, value] : env) all[name] = value;
    std::vector<std::string> entries;
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string entry = *e;
      if (entry.starts_with("DOCGATE_") && !entry.starts_with("DOCGATE_TEST_")) continue;
      entries.push_back(entry);
    }
    for (const auto& [name, value] : all) entries.push_back(name + "=" + value);
    std::vector<char*> envp;
    for (auto& entry : entries) envp.push_back(entry.data());
    envp.push_back(nullptr);
    std::string binary = testing::BesideExecutable(DOCGATE_BINARY);
    std::vector<std::string> argv_text = {binary};
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& arg : argv_text) argv.push_back(arg.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t files;
    ::posix_spawn_file_actions_init(&files);
    ::posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, Path("stdout").c_str(),
                                       O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::posix_spawn_file_actions_addopen(&files, STDERR_FILENO, Path("stderr").c_str(),
                                       O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int failed =
        ::posix_spawn(&pid_, binary.c_str(), &files, nullptr, argv.data(), envp.data());
    ::posix_spawn_file_actions_destroy(&files);
    if (failed != 0) throw std::runtime_error("cannot start " + binary);
  }
  ~CliProcess() {
    if (pid_ > 0) Signal(SIGKILL);
  }
  CliProcess(const CliProcess&) = delete;
  CliProcess& operator=(const CliProcess&) = delete;

  // Sends `signal` (0: none), then waits for the exit; its status, -1 when killed.
  int Signal(int signal) {
    if (signal != 0) ::kill(pid_, signal);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  int Wait() { return Signal(0); }
  std::string Out() const { return Read("stdout"); }
  // stderr, line by line.
  std::vector<std::string> ErrLines() const {
    std::vector<std::string> lines;
    std::istringstream in(Read("stderr"));
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }

 private:
  std::string Path(const char* name) const { return (dir_.path() / name).string(); }
  std::string Read(const char* name) const {
    std::ifstream in(Path(name));
    std::stringstream content;
    content << in.rdbuf();
    return content.str();
  }

  TempDir dir_;
  pid_t pid_ = 0;
};

// What `docgate token --sub a --roles author --console extra...` prints, less the token.
std::string ConsoleLink(const std::vector<std::string>& extra,
                        const std::map<std::string, std::string>& env) {
  std::vector<std::string> args = {"token", "--sub", "a", "--roles", "author", "--console"};
  args.insert(args.end(), extra.begin(), extra.end());
  CliProcess token(args, env);
  EXPECT_EQ(token.Wait(), 0) << ::testing::PrintToString(token.ErrLines());
  const std::string out = token.Out();
  return out.substr(0, out.find("#token="));
}

TEST(TokenCommandTest, TheConsoleLinkPointsWhereServeListensWithTheSameEnvironmentAndFlags) {
  EXPECT_EQ(ConsoleLink({}, {}), "http://127.0.0.1:8080/") << "DOCGATE_LISTEN's default";
  EXPECT_EQ(ConsoleLink({}, {{"DOCGATE_LISTEN", "127.0.0.1:9123"}}), "http://127.0.0.1:9123/");
  EXPECT_EQ(ConsoleLink({"--listen", "127.0.0.1:9124"}, {}), "http://127.0.0.1:9124/");
  EXPECT_EQ(ConsoleLink({"--listen", "127.0.0.1:9124"}, {{"DOCGATE_LISTEN", "127.0.0.1:9123"}}),
            "http://127.0.0.1:9124/")
      << "--listen wins, as it does for serve";
  EXPECT_EQ(ConsoleLink({"--listen", "0.0.0.0:9125"}, {}), "http://127.0.0.1:9125/");
  EXPECT_EQ(ConsoleLink({"--listen", "127.0.0.1:9124", "--console-url", "https://kb.example/dg"},
                        {{"DOCGATE_LISTEN", "127.0.0.1:9123"}}),
            "https://kb.example/dg/")
      << "--console-url wins over both";

  // The link of `serve --listen` opens the console that serve answers.
  const std::string listen = "127.0.0.1:" + std::to_string(e2e::FreePort());
  const std::string link = ConsoleLink({"--listen", listen}, {});
  EXPECT_EQ(link, "http://" + listen + "/");
  CliProcess serve({"serve", "--listen", listen}, {});
  const auto port = static_cast<std::uint16_t>(std::stoi(listen.substr(listen.rfind(':') + 1)));
  EXPECT_TRUE(e2e::ReadyWithin(port, 20s)) << ::testing::PrintToString(serve.ErrLines());
  EXPECT_EQ(serve.Signal(SIGTERM), 0);
}

// `docgate serve` in `format` with a misspelt variable (a warning at start), one request and a
// SIGTERM: what it wrote to stderr.
std::vector<std::string> ServeLog(const std::string& format) {
  const std::uint16_t port = e2e::FreePort();
  CliProcess serve({"serve"}, {{"DOCGATE_LOG_FORMAT", format},
                               {"DOCGATE_LOG_LEVEL", "info"},
                               {"DOCGATE_LISTEN", "127.0.0.1:" + std::to_string(port)},
                               {"DOCGATE_LISTN", "misspelt"}});
  EXPECT_TRUE(e2e::ReadyWithin(port, 20s)) << ::testing::PrintToString(serve.ErrLines());
  EXPECT_EQ(
      e2e::HttpClient(port, 5s)
          .Request(boost::beast::http::verb::get, "/healthz", {}, {{"X-Request-Id", "cli-log-1"}})
          .status(),
      200u);
  EXPECT_EQ(serve.Signal(SIGTERM), 0);
  return serve.ErrLines();
}

TEST(LogFormatTest, WithJsonEveryLineOfServeIsOneJsonObjectRequestsIncluded) {
  const std::vector<std::string> lines = ServeLog("json");
  ASSERT_GE(lines.size(), 5u) << "the warning, serving, the requests, SIGTERM, stopped: "
                              << ::testing::PrintToString(lines);
  int requests = 0;
  bool warned = false;
  bool served = false;
  for (const std::string& line : lines) {
    const json object = json::parse(line, nullptr, false);
    ASSERT_TRUE(object.is_object()) << line;
    EXPECT_TRUE(object["time"].is_string()) << line;
    EXPECT_TRUE(object["level"].is_string()) << line;
    EXPECT_NE(object.contains("message"), object.contains("request_id")) << line;
    EXPECT_EQ(line.find(kCliJwtSecret), std::string::npos) << line;
    if (object.value("request_id", "") == "cli-log-1") {
      ++requests;
      EXPECT_EQ(object["route"], "/healthz");
      EXPECT_EQ(object["status"], 200);
    }
    const std::string message = object.value("message", "");
    warned = warned ||
             (object["level"] == "warning" && message.find("DOCGATE_LISTN") != std::string::npos);
    served = served || message.starts_with("docgate: serving http://127.0.0.1:");
  }
  EXPECT_EQ(requests, 1) << ::testing::PrintToString(lines);
  EXPECT_TRUE(warned) << ::testing::PrintToString(lines);
  EXPECT_TRUE(served) << ::testing::PrintToString(lines);
}

TEST(LogFormatTest, WithTextNoLineOfServeIsJsonRequestsIncluded) {
  const std::vector<std::string> lines = ServeLog("text");
  ASSERT_GE(lines.size(), 5u) << ::testing::PrintToString(lines);
  int requests = 0;
  for (const std::string& line : lines) {
    EXPECT_FALSE(json::accept(line)) << line;
    EXPECT_TRUE(line.starts_with("[")) << line;
    if (line.find("request_id=cli-log-1 method=GET route=/healthz status=200") !=
        std::string::npos) {
      ++requests;
    }
  }
  EXPECT_EQ(requests, 1) << ::testing::PrintToString(lines);
}

TEST(LogFormatTest, WithJsonTheErrorThatStopsACommandIsAJsonLineToo) {
  CliProcess json_token({"token", "--sub", "a", "--roles", "writer"},
                        {{"DOCGATE_LOG_FORMAT", "json"}, {"DOCGATE_LOG_LEVEL", "off"}});
  EXPECT_EQ(json_token.Wait(), 2);
  const std::vector<std::string> lines = json_token.ErrLines();
  ASSERT_EQ(lines.size(), 1u) << ::testing::PrintToString(lines);
  const json object = json::parse(lines[0], nullptr, false);
  ASSERT_TRUE(object.is_object()) << lines[0];
  EXPECT_EQ(object["level"], "error");
  EXPECT_NE(object.value("message", "").find("--roles takes author"), std::string::npos)
      << lines[0];

  CliProcess text_token({"token", "--sub", "a", "--roles", "writer"},
                        {{"DOCGATE_LOG_FORMAT", "text"}});
  EXPECT_EQ(text_token.Wait(), 2);
  ASSERT_EQ(text_token.ErrLines().size(), 1u);
  EXPECT_TRUE(text_token.ErrLines()[0].starts_with("docgate: --roles takes author"))
      << text_token.ErrLines()[0];
}

}  // namespace
}  // namespace docgate
