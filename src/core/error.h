#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace docgate {

// The machine-readable outcomes of API.md's error table. Use cases return these as values;
// only the HTTP layer knows which status each one maps to.
enum class ErrorCode {
  kValidation,
  kUnauthenticated,
  kForbidden,
  kSelfReview,
  kNotFound,
  kLockBusy,
  kInvalidState,
  kIdempotencyInFlight,
  kVersionMismatch,
  kPayloadTooLarge,
  kIdempotencyKeyReused,
  kAlreadyVoted,
  kUnsupportedMediaType,   // an import of a kind docgate does not convert (415)
  kUnprocessableDocument,  // an import docgate cannot read (422)
  kUnavailable,            // the last: ParseErrorCode walks the codes up to it
};

// The API.md spelling of a code, e.g. "LOCK_BUSY".
const char* ErrorCodeName(ErrorCode code);

struct Error {
  ErrorCode code;
  std::string detail;
  // Whole seconds the client should wait before retrying (LOCK_BUSY, UNAVAILABLE).
  std::optional<int> retry_after_seconds;
};

inline Error MakeError(ErrorCode code, std::string detail) { return Error{code, std::move(detail), {}}; }

// Either a value or an expected failure. Infrastructure failures are exceptions, not Results.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Error error) : state_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, Error> state_;
};

// Result<void>: success carries nothing.
struct Ok {};
using Status = Result<Ok>;

// Thrown by adapters when the database cannot serve the request (connection refused, timeout,
// busy beyond the configured wait). The HTTP boundary maps it to 503 UNAVAILABLE.
class StorageUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown by adapters for a storage failure that is a bug or corruption, not an outage (constraint
// violated, malformed row). The HTTP boundary maps it to 500.
class StorageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace docgate
