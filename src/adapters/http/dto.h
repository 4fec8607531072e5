#pragma once

// DTO <-> JSON for the HTTP contract (shared/API.md): ids as decimal strings, times RFC 3339 UTC
// with milliseconds, enums by their API spelling. Pure functions, no I/O.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/document_service.h"
#include "app/ports/chunk_index.h"
#include "app/reader_service.h"
#include "core/error.h"
#include "core/model.h"
#include "core/time_format.h"

namespace docgate {

// A positive int64 written in canonical decimal ("42"); nullopt for "", "abc", "-1", "0", "+1",
// " 1", "1.0", a leading zero ("017", which would alias "17") and anything that overflows int64.
std::optional<std::int64_t> ParsePositiveId(std::string_view text);
// A version number written like an id ("3"); nullopt when malformed or not a positive int32.
std::optional<std::int32_t> ParseVersion(std::string_view text);
// A strict entity tag naming a version: "\"3\"" -> 3; nullopt when malformed or not a positive
// int32.
std::optional<std::int32_t> ParseVersionTag(std::string_view text);
// The ETag of a version: 3 -> "\"3\"".
std::string VersionTag(std::int32_t version);

// The deepest nesting of arrays and objects a request body may have ("[[1]]" is 2 levels).
inline constexpr int kMaxJsonDepth = 64;

// A request body as JSON. VALIDATION when it is not JSON (invalid UTF-8 in a string and a NUL byte
// anywhere included) or nests deeper than kMaxJsonDepth. The parser is iterative and drops what
// lies too deep, so no body can exhaust the stack or build a deep tree.
Result<nlohmann::json> ParseJsonBody(std::string_view body);

// The display names of the people a response names (UserNames::NamesOf over PeopleIn): each
// `..._id` / `..._by` a resource carries comes with a `..._name`, null for an id without one.
using NameBook = std::map<UserId, std::string>;
std::vector<UserId> PeopleIn(const Document& doc);
std::vector<UserId> PeopleIn(const Review& review);
std::vector<UserId> PeopleIn(const Transition& transition);
std::vector<UserId> PeopleIn(const QueuedReview& item);
std::vector<UserId> PeopleIn(const Page<Document>& page);
std::vector<UserId> PeopleIn(const Page<Review>& page);
std::vector<UserId> PeopleIn(const Page<QueuedReview>& page);
std::vector<UserId> PeopleIn(const ReviewComment& comment);
std::vector<UserId> PeopleIn(const Page<ReviewComment>& page);

// With `author_name`.
nlohmann::json ToJson(const Document& doc, const NameBook& names);
// With `submitted_by_name` and `decided_by_name`.
nlohmann::json ToJson(const Review& review, const NameBook& names);
nlohmann::json ToJson(const Transition& transition, const NameBook& names);
nlohmann::json ToJson(const ContentView& content);
nlohmann::json ToJson(const Preview& preview);
// {"mode", "items": [{"document_id", "version", "title", "snippet", "highlights", "score"}]}.
nlohmann::json ToJson(const SearchResults& results);
// The search mode named `text` (keyword, semantic, hybrid), or none.
std::optional<SearchMode> ParseSearchMode(std::string_view text);
nlohmann::json ToJson(const Page<Document>& page, const NameBook& names);
// A document's review history: {"items": [...], "next"}.
nlohmann::json ToJson(const Page<Review>& page, const NameBook& names);
// A review of the queue: the review's fields and its document's `title`.
nlohmann::json ToJson(const QueuedReview& item, const NameBook& names);
// The review queue: {"items": [...], "next"}.
nlohmann::json ToJson(const Page<QueuedReview>& page, const NameBook& names);
// A comment on a review: {id, review_id, document_version, author_id, author_name, body, line,
// parent_id, created_at}.
nlohmann::json ToJson(const ReviewComment& comment, const NameBook& names);
// A review's comments: {"items": [...], "next"}.
nlohmann::json ToJson(const Page<ReviewComment>& page, const NameBook& names);
// A document's version history: {"items": [{version, title, edited_by, created_at, review_id,
// review_status}]}.
nlohmann::json ToJson(const std::vector<VersionSummary>& versions);
// A page of it: the same with "next".
nlohmann::json ToJson(const Page<VersionSummary>& page);
// One version: {document_id, version, title, content}.
nlohmann::json ToJson(const DocumentVersion& version);

// Serialises for the wire; invalid UTF-8 (which the core never stores) is replaced, not thrown.
std::string Dump(const nlohmann::json& json);

}  // namespace docgate
