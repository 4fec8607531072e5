// One log format per process (DOCGATE_LOG_FORMAT): a JSON line holds any message whole and
// without a secret; a text line is no JSON.

#include "runtime/log_line_formatter.h"

#include <gtest/gtest.h>
#include <spdlog/logger.h>
#include <spdlog/sinks/ostream_sink.h>
#include <unistd.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/log_redaction.h"

namespace docgate {
namespace {

constexpr const char* kLineSecret = "jwt-\"quoted\\secret-4e7a1b";
constexpr const char* kAwkwardMessage =
    "saved \"草稿\"\n\tby 作者 with key jwt-\"quoted\\secret-4e7a1b, then \x01 done";

// What `logger.warn(message)` writes through a logger formatted as `format` hiding kLineSecret.
std::string LoggedLine(LogFormat format, const std::string& message) {
  std::ostringstream out;
  spdlog::logger logger("format-test", std::make_shared<spdlog::sinks::ostream_sink_st>(out));
  RedactLogLines(logger, {kLineSecret}, format);
  logger.warn(message);
  return out.str();
}

TEST(LogLineFormatter, AJsonLineIsOneObjectWithTimeLevelAndTheWholeMessageSecretsHidden) {
  const std::string line = LoggedLine(LogFormat::kJson, kAwkwardMessage);
  ASSERT_FALSE(line.empty());
  EXPECT_EQ(line.find('\n'), line.size() - 1) << "one line: " << line;
  const nlohmann::json object = nlohmann::json::parse(line, nullptr, false);
  ASSERT_TRUE(object.is_object()) << line;
  EXPECT_EQ(object.size(), 3u) << line;
  EXPECT_TRUE(std::regex_match(object.value("time", ""),
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)")))
      << line;
  EXPECT_EQ(object["level"], "warning");
  EXPECT_EQ(object["message"], "saved \"草稿\"\n\tby 作者 with key ***, then \x01 done");
  EXPECT_TRUE(line.starts_with(R"({"time":")")) << "time, level, message in that order: " << line;
  EXPECT_EQ(line.find("secret-4e7a1b"), std::string::npos) << line;
  EXPECT_EQ(line.find("草稿"), line.find("\\\"草稿") + 2) << "Chinese as written: " << line;
}

TEST(LogLineFormatter, AJsonLineOfBytesThatAreNotUtf8IsStillJson) {
  const std::string line = LoggedLine(LogFormat::kJson, "cut \xe6\x96 here \xff");
  const nlohmann::json object = nlohmann::json::parse(line, nullptr, false);
  ASSERT_TRUE(object.is_object()) << line;
  EXPECT_EQ(object["message"], "cut \xef\xbf\xbd here \xef\xbf\xbd");
}

TEST(LogLineFormatter, ATextLineIsReadableTextWithTheSecretsHiddenAndNoJson) {
  const std::string line =
      LoggedLine(LogFormat::kText, "approved 文档 42 for jwt-\"quoted\\secret-4e7a1b");
  EXPECT_TRUE(std::regex_match(
      line,
      std::regex(
          R"(\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\] \[warning\] approved .* for \*\*\*\n)")))
      << line;
  EXPECT_NE(line.find("approved 文档 42"), std::string::npos) << line;
  EXPECT_FALSE(nlohmann::json::accept(line)) << line;
  EXPECT_FALSE(nlohmann::json::accept(LoggedLine(LogFormat::kText, "{\"a\":1}")))
      << "a message that is JSON does not make the line JSON";
}

TEST(LogLineFormatter, TheSettingNamesTheFormatAndUnsetFollowsWhetherStderrIsATerminal) {
  EXPECT_EQ(LogFormatOf("json"), LogFormat::kJson);
  EXPECT_EQ(LogFormatOf("text"), LogFormat::kText);
  const LogFormat unset = ::isatty(STDERR_FILENO) == 1 ? LogFormat::kText : LogFormat::kJson;
  EXPECT_EQ(LogFormatOf(""), unset);
}

}  // namespace
}  // namespace docgate
