// The observers of answered requests: the JSON request log and the HTTP metrics.

#include <gtest/gtest.h>
#include <spdlog/logger.h>
#include <spdlog/sinks/ostream_sink.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "adapters/http/request_trace.h"
#include "adapters/prometheus/metrics_registry.h"
#include "runtime/metrics.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

HttpResponse Response(HttpStatus status) { return HttpResponse{status, 11}; }

TEST(RequestIdTest, AcceptsOneTo128OfTheSafeCharactersOnly) {
  EXPECT_TRUE(IsAcceptableRequestId("a"));
  EXPECT_TRUE(IsAcceptableRequestId("Req-42_x.Y"));
  EXPECT_TRUE(IsAcceptableRequestId(std::string(128, 'z')));
  EXPECT_FALSE(IsAcceptableRequestId(""));
  EXPECT_FALSE(IsAcceptableRequestId(std::string(129, 'z')));
  EXPECT_FALSE(IsAcceptableRequestId("has space"));
  EXPECT_FALSE(IsAcceptableRequestId("quote\""));
  EXPECT_FALSE(IsAcceptableRequestId("new\nline"));
  EXPECT_FALSE(IsAcceptableRequestId("slash/"));
  EXPECT_FALSE(IsAcceptableRequestId("caf\xc3\xa9"));
}

TEST(MethodLabelTest, KnownMethodsByNameAnythingElseAsOther) {
  EXPECT_EQ(MethodLabel(HttpVerb::get), "GET");
  EXPECT_EQ(MethodLabel(HttpVerb::delete_), "DELETE");
  EXPECT_EQ(MethodLabel(HttpVerb::unknown), "OTHER");
}

class RequestLogTest : public ::testing::Test {
 protected:
  RequestLogTest() {
    sink_->set_formatter(RequestLog::MakeFormatter());
    logger_->set_level(spdlog::level::info);
  }
  std::ostringstream out_;
  std::shared_ptr<spdlog::sinks::ostream_sink_st> sink_ =
      std::make_shared<spdlog::sinks::ostream_sink_st>(out_);
  std::shared_ptr<spdlog::logger> logger_ = std::make_shared<spdlog::logger>("test", sink_);
  RequestLog log_{logger_};
};

TEST_F(RequestLogTest, OneJsonLineWithTheFieldsInOrder) {
  RequestTrace trace{"req-1", "/api/v1/documents/{id}/submit", "alice"};
  const HttpResponse response = Response(HttpStatus::ok);
  log_.OnRequest(CompletedRequest{"POST", trace, response, 3172400ns});
  const std::string line = out_.str();
  ASSERT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1) << "one line";
  const std::regex shape(
      R"re(\{"time":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z","level":"info","request_id":"req-1","method":"POST","route":"/api/v1/documents/\{id\}/submit","status":200,"duration_ms":3.172,"caller":"alice"\}\n)re");
  EXPECT_TRUE(std::regex_match(line, shape)) << line;
}

TEST_F(RequestLogTest, AnUnauthenticatedCallerIsNullAServerErrorAWarningAndTextIsEscaped) {
  RequestTrace anonymous{"req-2", "unmatched", ""};
  const HttpResponse unavailable = Response(HttpStatus::service_unavailable);
  log_.OnRequest(CompletedRequest{"GET", anonymous, unavailable, 1ms});
  RequestTrace odd{"req-3", "/x", "mallory\"}\n\xff"};
  const HttpResponse ok = Response(HttpStatus::ok);
  log_.OnRequest(CompletedRequest{"GET", odd, ok, 1ms});
  std::istringstream lines(out_.str());
  std::string first;
  std::string second;
  ASSERT_TRUE(std::getline(lines, first));
  ASSERT_TRUE(std::getline(lines, second));
  const json a = json::parse(first);
  EXPECT_EQ(a["level"], "warning");
  EXPECT_TRUE(a["caller"].is_null());
  EXPECT_EQ(a["status"], 503);
  const json b = json::parse(second);
  EXPECT_EQ(b["caller"], "mallory\"}\n\xef\xbf\xbd");
}

TEST_F(RequestLogTest, TheTextFormSaysTheSameFieldsOnOneLineWithTheCallerQuoted) {
  RequestLog text_log(logger_, RequestLog::Form::kText);
  sink_->set_pattern("%v");
  RequestTrace trace{"req-5", "/api/v1/documents/{id}", "mallory\"}\n"};
  const HttpResponse ok = Response(HttpStatus::ok);
  text_log.OnRequest(CompletedRequest{"GET", trace, ok, 3172400ns});
  RequestTrace anonymous{"req-6", "/healthz", ""};
  text_log.OnRequest(CompletedRequest{"GET", anonymous, ok, 1ms});
  EXPECT_EQ(out_.str(),
            "request_id=req-5 method=GET route=/api/v1/documents/{id} status=200 "
            "duration_ms=3.172 caller=\"mallory\\\"}\\n\"\n"
            "request_id=req-6 method=GET route=/healthz status=200 duration_ms=1.0 caller=-\n");
}

TEST_F(RequestLogTest, TheLoggersLevelFiltersLines) {
  logger_->set_level(spdlog::level::warn);
  RequestTrace trace{"req-4", "/healthz", ""};
  const HttpResponse ok = Response(HttpStatus::ok);
  log_.OnRequest(CompletedRequest{"GET", trace, ok, 1ms});
  EXPECT_EQ(out_.str(), "");
  const HttpResponse failed = Response(HttpStatus::internal_server_error);
  log_.OnRequest(CompletedRequest{"GET", trace, failed, 1ms});
  EXPECT_NE(out_.str(), "");
}

TEST(HttpMetricsTest, CountsByMethodRouteAndStatusTimesByRouteAndCountsReplays) {
  MetricsRegistry registry;
  HttpMetrics metrics(registry);
  RequestTrace create{"r", "/api/v1/documents", "alice"};
  HttpResponse created = Response(HttpStatus::created);
  metrics.OnRequest(CompletedRequest{"POST", create, created, 2ms});
  metrics.OnRequest(CompletedRequest{"POST", create, created, 20ms});
  HttpResponse replayed = Response(HttpStatus::created);
  replayed.set("Idempotent-Replayed", "true");
  metrics.OnRequest(CompletedRequest{"POST", create, replayed, 1ms});
  RequestTrace unknown{"r", "unmatched", ""};
  HttpResponse not_found = Response(HttpStatus::not_found);
  metrics.OnRequest(CompletedRequest{"GET", unknown, not_found, 1ms});

  const std::string text = registry.Expose();
  const auto has = [&text](const std::string& line) {
    return text.find("\n" + line + "\n") != std::string::npos;
  };
  EXPECT_TRUE(has(R"(docgate_http_requests_total{method="POST",route="/api/v1/documents",status="201"} 3)")) << text;
  EXPECT_TRUE(has(R"(docgate_http_requests_total{method="GET",route="unmatched",status="404"} 1)")) << text;
  EXPECT_TRUE(has(R"(docgate_http_request_duration_seconds_bucket{method="POST",route="/api/v1/documents",le="0.001"} 1)")) << text;
  EXPECT_TRUE(has(R"(docgate_http_request_duration_seconds_bucket{method="POST",route="/api/v1/documents",le="0.0025"} 2)")) << text;
  EXPECT_TRUE(has(R"(docgate_http_request_duration_seconds_bucket{method="POST",route="/api/v1/documents",le="0.025"} 3)")) << text;
  EXPECT_TRUE(has(R"(docgate_http_request_duration_seconds_count{method="POST",route="/api/v1/documents"} 3)")) << text;
  EXPECT_TRUE(has(R"(docgate_http_request_duration_seconds_sum{method="POST",route="/api/v1/documents"} 0.023)")) << text;
  EXPECT_TRUE(has("docgate_idempotent_replays_total 1")) << text;
}

}  // namespace
}  // namespace docgate
