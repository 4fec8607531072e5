#pragma once

// The HTTP side of Idempotency-Key (shared/API.md "Idempotency"): the header's rules, the
// fingerprint that tells one request from another, and the form in which docgate stored whole
// responses before it stored outcomes (app/idempotent_outcome.h, ADR 0007).

#include <cstddef>
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

// The most a stored response took, encoded.
inline constexpr std::size_t kMaxStoredResponseBytes = 32 * 1024;

// A response as one string (a small JSON envelope of status, header fields and body) and back,
// byte for byte: Decode(Encode(r)) has r's status, fields (except Content-Length and
// Transfer-Encoding, which the server sets) and body. Records in this form may still be in a
// database written by a docgate before ADR 0007; they are replayed through DecodeResponse until
// their TTL ends. Nothing stores new ones: Encode is kept so that tests and the fuzz target can
// write such records. Encode refuses rather than stores altered or oversized text: it throws (a
// std::exception) for a body that is not UTF-8, and std::length_error for an envelope above
// kMaxStoredResponseBytes. Decode throws std::runtime_error for text Encode did not write.
std::string EncodeResponse(const HttpResponse& response);
HttpResponse DecodeResponse(const std::string& stored);

}  // namespace docgate
