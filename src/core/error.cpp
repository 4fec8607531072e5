#include "core/error.h"

namespace docgate {

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kValidation: return "VALIDATION";
    case ErrorCode::kUnauthenticated: return "UNAUTHENTICATED";
    case ErrorCode::kForbidden: return "FORBIDDEN";
    case ErrorCode::kSelfReview: return "SELF_REVIEW";
    case ErrorCode::kNotFound: return "NOT_FOUND";
    case ErrorCode::kLockBusy: return "LOCK_BUSY";
    case ErrorCode::kInvalidState: return "INVALID_STATE";
    case ErrorCode::kIdempotencyInFlight: return "IDEMPOTENCY_IN_FLIGHT";
    case ErrorCode::kVersionMismatch: return "VERSION_MISMATCH";
    case ErrorCode::kPayloadTooLarge: return "PAYLOAD_TOO_LARGE";
    case ErrorCode::kIdempotencyKeyReused: return "IDEMPOTENCY_KEY_REUSED";
    case ErrorCode::kAlreadyVoted:
      return "ALREADY_VOTED";
    case ErrorCode::kUnsupportedMediaType:
      return "UNSUPPORTED_MEDIA_TYPE";
    case ErrorCode::kUnprocessableDocument:
      return "UNPROCESSABLE_DOCUMENT";
    case ErrorCode::kUnavailable: return "UNAVAILABLE";
  }
  return "UNKNOWN";
}

}  // namespace docgate
