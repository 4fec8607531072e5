#pragma once

// The HTTP side of Idempotency-Key (shared/API.md "Idempotency"): the header's rules, the
// fingerprint that tells one request from another, and the stored form of a response.

#include <optional>
#include <string>
#include <string_view>

#include "adapters/http/http_message.h"

namespace docgate {

inline constexpr char kIdempotencyKeyHeader[] = "Idempotency-Key";
inline constexpr char kIdempotentReplayedHeader[] = "Idempotent-Replayed";

// Why `key` is not a valid Idempotency-Key (1..255 characters, each printable ASCII 0x20..0x7E),
// or nullopt when it is.
std::optional<std::string> IdempotencyKeyProblem(std::string_view key);

// SHA-256, lowercase hex, of method + '\n' + target (path and query) + '\n' + body: two requests
// are "the same request" exactly when these agree.
std::string RequestFingerprint(const HttpRequest& request);

// A response as one string (a small JSON envelope of status, header fields and body) and back,
// byte for byte: Decode(Encode(r)) has r's status, fields (except Content-Length and
// Transfer-Encoding, which the server sets) and body. Decode throws std::runtime_error for text
// Encode did not write.
std::string EncodeResponse(const HttpResponse& response);
HttpResponse DecodeResponse(const std::string& stored);

}  // namespace docgate
