#pragma once

// What an idempotent request's answer is stored as (ADR 0007): a snapshot of the use case's
// outcome, free of any transport - the document created, the transition (document and review), the
// review whose assignees changed, the comment written or the refusal stored like a success
// (IsStoredRefusal). The HTTP layer renders it into a response
// with one function on the first answer and on every replay, so they are the same bytes.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.h"
#include "core/model.h"

namespace docgate {

// What a stored refusal's `detail` may hold, in bytes.
inline constexpr std::size_t kMaxStoredDetailBytes = 512;
// `detail` as a stored refusal carries it: unchanged up to kMaxStoredDetailBytes, else cut on a
// code point boundary (details may be Chinese) and ended with "…", kMaxStoredDetailBytes at most.
std::string StoredDetail(std::string detail);

struct IdempotentOutcome {
  enum class Kind { kCreated, kTransitioned, kAssigned, kCommented, kRefused };

  Kind kind = Kind::kCreated;
  Document document;                          // kCreated, kTransitioned: the rows as committed
  std::optional<ImportSource> source;         // kCreated by an import only
  std::optional<Review> review;               // kTransitioned, kAssigned
  std::optional<ReviewComment> comment;       // kCommented only
  ErrorCode code = ErrorCode::kInvalidState;  // kRefused only
  std::string detail;                         // kRefused only, through StoredDetail

  static IdempotentOutcome Created(Document document);
  static IdempotentOutcome Transitioned(Document document, Review review);
  static IdempotentOutcome Assigned(Review review);
  static IdempotentOutcome Commented(ReviewComment comment);
  // The refusal with its detail capped (StoredDetail); its retry_after_seconds is not kept (no
  // stored refusal has one).
  static IdempotentOutcome Refused(const Error& error);

  bool operator==(const IdempotentOutcome&) const = default;
};

// The first line of every encoded outcome, followed by its format version.
inline constexpr std::string_view kOutcomeFormat = "docgate-idempotent-outcome ";
inline constexpr int kOutcomeFormatVersion = 1;

// The most an encoded outcome may take. Every outcome stays below it: a committed one holds
// bounded fields only (a title of 200 characters, a comment or reason of 2000, token subjects of
// 255 bytes, up to ten approvals each with a reviewer and a comment of 2000 characters, up to
// kMaxAssignees assignees; a review comment of 4000 characters; at most 3 bytes a byte once
// escaped, about 305 KiB in the worst case), a refusal a detail of at most kMaxStoredDetailBytes.
inline constexpr std::size_t kMaxStoredOutcomeBytes = 320 * 1024;

// The stored text of an outcome: ASCII lines, the kOutcomeFormat line first, then one
// "name value" line per field that has a value, text percent-encoded (see ADR 0007). Refuses
// rather than stores what it could not read back: throws std::invalid_argument for text that is
// not UTF-8 without NUL (which no store keeps either) and std::length_error above
// kMaxStoredOutcomeBytes (a bug, either; an effect stored with it rolls back).
std::string EncodeOutcome(const IdempotentOutcome& outcome);

// True when `stored` begins like an EncodeOutcome text of any version; false for anything else,
// such as a record written before outcomes were stored (ADR 0007).
bool IsEncodedOutcome(std::string_view stored);

// The outcome EncodeOutcome wrote: DecodeOutcome(EncodeOutcome(o)) == o. Fields it does not know
// are ignored, so a later version 1 writer may add some. Throws StorageError, naming what is
// wrong, for any other text: a newer version, a missing or malformed field, text that is not
// UTF-8 without NUL.
IdempotentOutcome DecodeOutcome(std::string_view stored);

}  // namespace docgate
