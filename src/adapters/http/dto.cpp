#include "adapters/http/dto.h"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <limits>

namespace docgate {
namespace {

using nlohmann::json;

json OptionalId(const std::optional<std::int64_t>& id) {
  return id ? json(std::to_string(*id)) : json(nullptr);
}

template <typename T>
json OptionalValue(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

json OptionalTime(const std::optional<TimePoint>& time) {
  return time ? json(FormatTime(*time)) : json(nullptr);
}

template <typename T>
json PageJson(const Page<T>& page, const NameBook& names) {
  json items = json::array();
  for (const auto& item : page.items) items.push_back(ToJson(item, names));
  return json{{"items", std::move(items)}, {"next", OptionalId(page.next)}};
}

json NameOf(const NameBook& names, const UserId& id) {
  const auto it = names.find(id);
  return it == names.end() ? json(nullptr) : json(it->second);
}

json NameOf(const NameBook& names, const std::optional<UserId>& id) {
  return id ? NameOf(names, *id) : json(nullptr);
}

template <typename T>
std::vector<UserId> PeopleInAll(const std::vector<T>& items) {
  std::vector<UserId> people;
  for (const T& item : items) {
    for (UserId& id : PeopleIn(item)) people.push_back(std::move(id));
  }
  return people;
}

}  // namespace

std::optional<std::int64_t> ParsePositiveId(std::string_view text) {
  if (text.empty() || text.front() < '1' || text.front() > '9') return std::nullopt;
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value <= 0) return std::nullopt;
  return value;
}

Result<json> ParseJsonBody(std::string_view body) {
  // JSON text holds no NUL byte, and nlohmann's lexer would take one for the end of the input:
  // `{...}\0anything` would pass as JSON, what follows the NUL unread and unbounded.
  if (body.find('\0') != std::string_view::npos) {
    return MakeError(ErrorCode::kValidation, "request body is not valid JSON");
  }
  bool too_deep = false;
  // `depth` is that of the container a value goes into: a top-level array starts at depth 0.
  const auto bounded = [&too_deep](int depth, json::parse_event_t event, json&) {
    if ((event == json::parse_event_t::array_start || event == json::parse_event_t::object_start) &&
        depth >= kMaxJsonDepth) {
      too_deep = true;
      return false;  // discarded: nothing below it is kept
    }
    return true;
  };
  json parsed = json::parse(body, bounded, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    return MakeError(ErrorCode::kValidation, "request body is not valid JSON");
  }
  if (too_deep) {
    return MakeError(ErrorCode::kValidation, "request body nests arrays and objects deeper than " +
                                                 std::to_string(kMaxJsonDepth) + " levels");
  }
  return parsed;
}

std::optional<std::int32_t> ParseVersion(std::string_view text) {
  const auto id = ParsePositiveId(text);
  if (!id || *id > std::numeric_limits<std::int32_t>::max()) return std::nullopt;
  return static_cast<std::int32_t>(*id);
}

std::optional<std::int32_t> ParseVersionTag(std::string_view text) {
  if (text.size() < 3 || text.front() != '"' || text.back() != '"') return std::nullopt;
  return ParseVersion(text.substr(1, text.size() - 2));
}

std::string VersionTag(std::int32_t version) { return "\"" + std::to_string(version) + "\""; }

std::vector<UserId> PeopleIn(const Document& doc) { return {doc.author_id}; }

std::vector<UserId> PeopleIn(const Review& review) {
  std::vector<UserId> people{review.submitted_by};
  if (review.decided_by) people.push_back(*review.decided_by);
  for (const Approval& approval : review.approvals) people.push_back(approval.reviewer_id);
  return people;
}

std::vector<UserId> PeopleIn(const Transition& transition) {
  std::vector<UserId> people = PeopleIn(transition.document);
  for (UserId& id : PeopleIn(transition.review)) people.push_back(std::move(id));
  return people;
}

std::vector<UserId> PeopleIn(const QueuedReview& item) { return PeopleIn(item.review); }
std::vector<UserId> PeopleIn(const Page<Document>& page) { return PeopleInAll(page.items); }
std::vector<UserId> PeopleIn(const Page<Review>& page) { return PeopleInAll(page.items); }
std::vector<UserId> PeopleIn(const Page<QueuedReview>& page) { return PeopleInAll(page.items); }
std::vector<UserId> PeopleIn(const ReviewComment& comment) { return {comment.author_id}; }
std::vector<UserId> PeopleIn(const Page<ReviewComment>& page) { return PeopleInAll(page.items); }

json ToJson(const Document& doc, const NameBook& names) {
  return json{{"id", std::to_string(doc.id)},
              {"title", doc.title},
              {"status", ToString(doc.status)},
              {"version", doc.version},
              {"author_id", doc.author_id},
              {"author_name", NameOf(names, doc.author_id)},
              {"current_review_id", OptionalId(doc.current_review_id)},
              {"approved_version", OptionalValue(doc.approved_version)},
              {"approved_at", OptionalTime(doc.approved_at)},
              {"ingest_status", ToString(doc.ingest_status)},
              {"format", ToString(doc.format)},
              {"created_at", FormatTime(doc.created_at)},
              {"updated_at", FormatTime(doc.updated_at)}};
}

json ToJson(const Review& review, const NameBook& names) {
  json approvals = json::array();
  for (const Approval& approval : review.approvals) {
    approvals.push_back({{"reviewer_id", approval.reviewer_id},
                         {"reviewer_name", NameOf(names, approval.reviewer_id)},
                         {"comment", OptionalValue(approval.comment)},
                         {"decided_at", FormatTime(approval.decided_at)}});
  }
  return json{{"id", std::to_string(review.id)},
              {"document_id", std::to_string(review.document_id)},
              {"document_version", review.document_version},
              {"status", ToString(review.status)},
              {"submitted_by", review.submitted_by},
              {"submitted_by_name", NameOf(names, review.submitted_by)},
              {"submitted_at", FormatTime(review.submitted_at)},
              {"decided_by", OptionalValue(review.decided_by)},
              {"decided_by_name", NameOf(names, review.decided_by)},
              {"decided_at", OptionalTime(review.decided_at)},
              {"comment", OptionalValue(review.comment)},
              {"required_approvals", review.required_approvals},
              {"assignees", review.assignees},
              {"approvals", std::move(approvals)}};
}

json ToJson(const Transition& transition, const NameBook& names) {
  return json{{"document", ToJson(transition.document, names)},
              {"review", ToJson(transition.review, names)}};
}

json ToJson(const ContentView& content) {
  return json{{"document_id", std::to_string(content.document_id)},
              {"version", content.version},
              {"content", content.content}};
}

json ToJson(const Preview& preview) {
  return json{{"document_id", std::to_string(preview.document_id)},
              {"version", preview.version},
              {"content", preview.content},
              {"approved_at", FormatTime(preview.approved_at)}};
}

namespace {

constexpr std::array<std::pair<SearchMode, std::string_view>, 3> kSearchModes{
    {{SearchMode::kKeyword, "keyword"},
     {SearchMode::kSemantic, "semantic"},
     {SearchMode::kHybrid, "hybrid"}}};

}  // namespace

std::optional<SearchMode> ParseSearchMode(std::string_view text) {
  for (const auto& [mode, name] : kSearchModes) {
    if (name == text) return mode;
  }
  return std::nullopt;
}

json ToJson(const SearchResults& results) {
  json items = json::array();
  for (const SearchHit& hit : results.items) {
    json highlights = json::array();
    for (const auto& [start, end] : hit.snippet.highlights) highlights.push_back({start, end});
    items.push_back(json{{"document_id", std::to_string(hit.document_id)},
                         {"version", hit.version},
                         {"title", hit.title},
                         {"snippet", hit.snippet.text},
                         {"highlights", std::move(highlights)},
                         {"score", hit.score},
                         {"chunk_index", hit.chunk_index},
                         {"section", hit.section}});
  }
  std::string_view mode;
  for (const auto& [value, name] : kSearchModes) {
    if (value == results.mode) mode = name;
  }
  json body{{"mode", mode}, {"items", std::move(items)}};
  if (results.keyword_fallback) body["fallback"] = "keyword";
  return body;
}

json ToJson(const Page<Document>& page, const NameBook& names) { return PageJson(page, names); }

json ToJson(const Page<Review>& page, const NameBook& names) { return PageJson(page, names); }

json ToJson(const QueuedReview& item, const NameBook& names) {
  json body = ToJson(item.review, names);
  body["title"] = item.title;
  return body;
}

json ToJson(const Page<QueuedReview>& page, const NameBook& names) { return PageJson(page, names); }

json ToJson(const ReviewComment& comment, const NameBook& names) {
  return json{{"id", std::to_string(comment.id)},
              {"review_id", std::to_string(comment.review_id)},
              {"document_version", comment.document_version},
              {"author_id", comment.author_id},
              {"author_name", NameOf(names, comment.author_id)},
              {"body", comment.body},
              {"line", OptionalValue(comment.line)},
              {"parent_id", OptionalId(comment.parent_id)},
              {"created_at", FormatTime(comment.created_at)}};
}

json ToJson(const Page<ReviewComment>& page, const NameBook& names) {
  return PageJson(page, names);
}

json ToJson(const Page<VersionSummary>& page) {
  json body = ToJson(page.items);
  body["next"] = OptionalId(page.next);
  return body;
}

json ToJson(const std::vector<VersionSummary>& versions) {
  json items = json::array();
  for (const VersionSummary& line : versions) {
    json review_status = nullptr;
    if (line.review_status) review_status = ToString(*line.review_status);
    items.push_back(json{{"version", line.version},
                         {"title", line.title},
                         {"edited_by", line.edited_by},
                         {"editors", line.editors},
                         {"created_at", FormatTime(line.created_at)},
                         {"review_id", OptionalId(line.review_id)},
                         {"review_status", std::move(review_status)}});
  }
  return json{{"items", std::move(items)}};
}

json ToJson(const DocumentVersion& version) {
  return json{{"document_id", std::to_string(version.document_id)},
              {"version", version.version},
              {"title", version.title},
              {"content", version.content}};
}

std::string Dump(const json& json) {
  return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace docgate
