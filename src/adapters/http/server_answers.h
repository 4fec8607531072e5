#pragma once

// The HTTP server's own answers, which RestApi never sees: a request the parser refused (400,
// 413), one the server does not take on (the 503s of load shedding), a callback that threw (500);
// each problem in the request's language.

#include <boost/beast/core/error.hpp>
#include <boost/beast/core/string.hpp>
#include <exception>
#include <optional>
#include <string_view>

#include "adapters/http/error_mapper.h"
#include "adapters/http/http_message.h"
#include "adapters/http/http_server.h"
#include "adapters/http/request_trace.h"

namespace docgate {

// The path of a request target, without its query.
std::string_view PathOf(boost::beast::string_view target);

// `response`, if a problem not yet translated (RestApi's come with Content-Language), in the
// language `request_headers` prefer (localize.h).
void LocalizeServerAnswer(HttpResponse& response, const HttpRequestHeader& request_headers);

// The answer to a request the parser refused with `ec`, or nullopt when the connection just went
// away (or broke in a way that leaves nothing to answer). `body_limit`: the one that applied.
std::optional<HttpResponse> TransportProblem(const boost::beast::error_code& ec,
                                             const HttpConfig& config, std::size_t body_limit);

// The 503 of a request the server does not take on, for `reason` (a kShed* value, noted in
// `trace`).
HttpResponse Shed(std::string_view reason, RequestTrace& trace);

// Logs that the callback `what` threw `error` for the request of `header`.
void LogThrown(std::string_view what, const HttpRequestHeader& header, const std::exception& error);

// `call()`, or a logged 500 when it throws; `what` names the callback in the log line.
template <typename Call>
auto OrInternalError(std::string_view what, const HttpRequestHeader& header, Call&& call)
    -> decltype(call()) {
  try {
    return call();
  } catch (const std::exception& e) {
    LogThrown(what, header, e);
    return InternalError();
  }
}

}  // namespace docgate
