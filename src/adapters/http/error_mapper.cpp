#include "adapters/http/error_mapper.h"

#include <algorithm>
#include <cctype>

#include "adapters/http/dto.h"

namespace docgate {
namespace {

namespace http = boost::beast::http;

struct Row {
  ErrorCode code;
  HttpStatus status;
  const char* title;
};

constexpr Row kTable[] = {
    {ErrorCode::kValidation, HttpStatus::bad_request, "Invalid request"},
    {ErrorCode::kUnauthenticated, HttpStatus::unauthorized, "Authentication required"},
    {ErrorCode::kForbidden, HttpStatus::forbidden, "Forbidden"},
    {ErrorCode::kSelfReview, HttpStatus::forbidden, "Self-review is not allowed"},
    {ErrorCode::kNotFound, HttpStatus::not_found, "Not found"},
    {ErrorCode::kLockBusy, HttpStatus::conflict, "Operation in progress"},
    {ErrorCode::kInvalidState, HttpStatus::conflict, "Transition not allowed"},
    {ErrorCode::kIdempotencyInFlight, HttpStatus::conflict, "Idempotent request in flight"},
    {ErrorCode::kVersionMismatch, HttpStatus::precondition_failed, "Version mismatch"},
    {ErrorCode::kPayloadTooLarge, HttpStatus::payload_too_large, "Payload too large"},
    {ErrorCode::kIdempotencyKeyReused, HttpStatus::unprocessable_entity, "Idempotency key reused"},
    {ErrorCode::kAlreadyVoted, HttpStatus::conflict, "Already approved by you"},
    {ErrorCode::kUnsupportedMediaType, HttpStatus::unsupported_media_type,
     "Unsupported media type"},
    {ErrorCode::kUnprocessableDocument, HttpStatus::unprocessable_entity,
     "Document cannot be read"},
    {ErrorCode::kUnavailable, HttpStatus::service_unavailable, "Service unavailable"},
};

const Row& RowOf(ErrorCode code) {
  const auto it = std::find_if(std::begin(kTable), std::end(kTable),
                               [code](const Row& row) { return row.code == code; });
  return it != std::end(kTable) ? *it : kTable[0];
}

// "LOCK_BUSY" -> "urn:docgate:problem:lock-busy".
std::string TypeUri(std::string_view code) {
  std::string uri = "urn:docgate:problem:";
  for (const char c : code) {
    uri += c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return uri;
}

HttpResponse Problem(HttpStatus status, std::string_view code, std::string_view title,
                     std::string_view detail) {
  HttpResponse response{status, 11};
  response.set(http::field::content_type, "application/problem+json");
  response.body() = Dump({{"type", TypeUri(code)},
                          {"title", title},
                          {"status", static_cast<unsigned>(status)},
                          {"detail", detail},
                          {"code", code}});
  return response;
}

}  // namespace

HttpStatus HttpStatusOf(ErrorCode code) { return RowOf(code).status; }

HttpResponse ProblemResponse(const Error& error) {
  const Row& row = RowOf(error.code);
  HttpResponse response = Problem(row.status, ErrorCodeName(error.code), row.title, error.detail);
  if (error.code == ErrorCode::kLockBusy || error.code == ErrorCode::kUnavailable ||
      error.code == ErrorCode::kIdempotencyInFlight) {
    response.set(http::field::retry_after,
                 std::to_string(std::max(1, error.retry_after_seconds.value_or(1))));
  }
  if (error.code == ErrorCode::kUnauthenticated) {
    response.set(http::field::www_authenticate, "Bearer realm=\"docgate\"");
  }
  return response;
}

HttpResponse MethodNotAllowed(std::string_view allow) {
  HttpResponse response = Problem(HttpStatus::method_not_allowed, "METHOD_NOT_ALLOWED",
                                  "Method not allowed",
                                  "this resource supports " + std::string(allow));
  response.set(http::field::allow, std::string(allow));
  return response;
}

HttpResponse InternalError() {
  return Problem(HttpStatus::internal_server_error, "INTERNAL", "Internal error",
                 "the server failed to handle the request; it has been logged");
}

}  // namespace docgate
