#include "adapters/http/server_answers.h"

#include <spdlog/spdlog.h>
#include <boost/beast/http/error.hpp>

#include <string>

#include "adapters/http/localize.h"
#include "adapters/http/request_params.h"

namespace docgate {

namespace http = boost::beast::http;

std::string_view PathOf(boost::beast::string_view target) {
  const std::string_view view = View(target);
  return view.substr(0, view.find('?'));
}

void LocalizeServerAnswer(HttpResponse& response, const HttpRequestHeader& request_headers) {
  if (response.find(http::field::content_language) != response.end()) return;
  LocalizeProblem(response, PreferredLanguage(View(request_headers[http::field::accept_language])));
}

std::optional<HttpResponse> TransportProblem(const boost::beast::error_code& ec,
                                             const HttpConfig& config, std::size_t body_limit) {
  if (ec == http::error::body_limit) {
    return ProblemResponse(
        MakeError(ErrorCode::kPayloadTooLarge,
                  "request body exceeds " + std::to_string(body_limit) + " bytes"));
  }
  if (ec == http::error::header_limit) {
    return ProblemResponse(
        MakeError(ErrorCode::kValidation,
                  "request header exceeds " + std::to_string(config.header_limit) + " bytes"));
  }
  if (ec == http::error::buffer_overflow) {
    return ProblemResponse(
        MakeError(ErrorCode::kValidation, "a chunk-size line, chunk extension or trailer exceeds " +
                                              std::to_string(kReadAhead) + " bytes"));
  }
  if (ec == http::error::end_of_stream || ec == http::error::partial_message) return std::nullopt;
  if (ec.category() == http::make_error_code(http::error::bad_method).category()) {
    return ProblemResponse(
        MakeError(ErrorCode::kValidation, "malformed HTTP request: " + ec.message()));
  }
  return std::nullopt;
}

HttpResponse Shed(std::string_view reason, RequestTrace& trace) {
  trace.shed = reason;
  Error error = MakeError(ErrorCode::kUnavailable,
                          reason == kShedConnections ? "the server is at its connection limit"
                          : reason == kShedQueueFull ? "every worker is busy and the queue is full"
                                                     : "the request waited too long for a worker");
  error.retry_after_seconds = kShedRetryAfterSeconds;
  return ProblemResponse(error);
}

void LogThrown(std::string_view what, const HttpRequestHeader& header,
               const std::exception& error) {
  spdlog::error("http: {} threw for {} {}: {}", what, View(header.method_string()),
                PathOf(header.target()), error.what());
}

}  // namespace docgate
