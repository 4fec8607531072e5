#pragma once

// What the HTTP layer learns about one request besides its message, for the request log and the
// metrics: its id, the route it matched and who made it.

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "adapters/http/http_message.h"

namespace spdlog {
class logger;
class formatter;
}  // namespace spdlog

namespace docgate {

// Filled in while a request is handled: the server sets the id, the handler the route and caller.
struct RequestTrace {
  // The client's X-Request-Id when IsAcceptableRequestId, else 32 random hex characters; echoed
  // in every response's X-Request-Id.
  std::string request_id;
  // The matched route's template ("/api/v1/documents/{id}/submit"; for a 405 that of the path's
  // routes), or "unmatched": no route, or refused before routing (413, oversized header,
  // malformed request). Never the raw path, so metrics stay of bounded cardinality.
  std::string route = "unmatched";
  // The authenticated caller (the token's `sub`); empty when the request was not authenticated.
  std::string caller;
  // Set by the server when it answered 503 to shed load instead of handling the request:
  // "connections", "queue_full" or "queue_timeout". Empty otherwise.
  std::string_view shed = {};
};

// True for 1..128 characters of [A-Za-z0-9._-].
bool IsAcceptableRequestId(std::string_view id);

// The `method` label of a request: the method's name when it is one HTTP knows ("GET", ...),
// else "OTHER" (an arbitrary token from the client would make the label unbounded).
std::string_view MethodLabel(HttpVerb verb);

// One answered request, as the server hands it to its observers.
struct CompletedRequest {
  std::string_view method;  // MethodLabel
  const RequestTrace& trace;
  const HttpResponse& response;  // status and headers; observers never look at the body
  // From the end of the request's header to the response being ready to write.
  std::chrono::nanoseconds duration;
};

// Sees every request the server answers, once, on an I/O thread, just before the response is
// written (so a client holding its response knows it has been observed). Implementations are
// thread-safe, fast, and do not throw.
class RequestObserver {
 public:
  virtual ~RequestObserver() = default;
  virtual void OnRequest(const CompletedRequest& request) noexcept = 0;
};

// The request log: one JSON line per answered request (or one text line, Form::kText), through
// `logger` (spdlog), whose sinks format with MakeFormatter():
//   {"time":"2026-11-29T14:00:00.123Z","level":"info","request_id":"4f0c...","method":"POST",
//    "route":"/api/v1/documents/{id}/submit","status":200,"duration_ms":3.172,"caller":"alice"}
// `time` is UTC with milliseconds; `level` is info, or warning for a 5xx; `caller` is null when
// the request was not authenticated. Nothing else of the request is ever written: no header (the
// Authorization token included), no query string, no body. The logger's level filters the lines.
class RequestLog final : public RequestObserver {
 public:
  // What a request's message holds. kJson: the fields of its JSON object after `time` and `level`,
  // for MakeFormatter. kText: the same fields as text, for a text log (DOCGATE_LOG_FORMAT=text):
  // `request_id=ID method=GET route=/api/v1/documents/{id} status=200 duration_ms=1.234
  // caller="alice"` (the caller JSON-quoted, `-` without one).
  enum class Form { kJson, kText };

  explicit RequestLog(std::shared_ptr<spdlog::logger> logger, Form form = Form::kJson);
  void OnRequest(const CompletedRequest& request) noexcept override;

  // The formatter a sink of the request log needs: `time` and `level` come from spdlog, the rest
  // of the object from RequestLog.
  static std::unique_ptr<spdlog::formatter> MakeFormatter();

 private:
  std::shared_ptr<spdlog::logger> logger_;
  Form form_;
};

}  // namespace docgate
