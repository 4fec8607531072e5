#include "app/idempotent_outcome.h"

#include <charconv>
#include <map>
#include <stdexcept>
#include <utility>

#include "core/lifecycle.h"
#include "core/time_format.h"
#include "core/utf8.h"

namespace docgate {
namespace {

using Kind = IdempotentOutcome::Kind;

constexpr std::pair<Kind, std::string_view> kKinds[] = {{Kind::kCreated, "created"},
                                                        {Kind::kTransitioned, "transitioned"},
                                                        {Kind::kAssigned, "assigned"},
                                                        {Kind::kCommented, "commented"},
                                                        {Kind::kRefused, "refused"}};

[[noreturn]] void Malformed(const std::string& why) {
  throw StorageError("stored idempotent outcome is unreadable: " + why);
}

// Every byte but printable ASCII, and '%' itself, as %XX: the text stays on its line and ASCII
// whatever the database's encoding.
std::string Escaped(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7F || c == '%') {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0x0F];
    } else {
      out += c;
    }
  }
  return out;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

class Writer {
 public:
  Writer() {
    text_.append(kOutcomeFormat).append(std::to_string(kOutcomeFormatVersion)).append(1, '\n');
  }
  void Text(std::string_view name, std::string_view value) {
    // What no store keeps could not be read back either: refused rather than stored unreadable.
    if (!IsStorableText(value)) {
      throw std::invalid_argument("outcome field " + std::string(name) +
                                  " is not UTF-8 without NUL");
    }
    text_.append(name).append(1, ' ').append(Escaped(value)).append(1, '\n');
  }
  void Number(std::string_view name, std::int64_t value) { Text(name, std::to_string(value)); }
  void Time(std::string_view name, TimePoint value) { Text(name, FormatTime(value)); }
  template <typename T, typename Put>
  void Optional(std::string_view name, const std::optional<T>& value, Put put) {
    if (value) (this->*put)(name, *value);
  }
  std::string Done() && { return std::move(text_); }

 private:
  std::string text_;
};

void WriteDocument(Writer& w, const Document& d) {
  w.Number("document.id", d.id);
  w.Text("document.title", d.title);
  w.Text("document.status", ToString(d.status));
  w.Number("document.version", d.version);
  w.Text("document.author_id", d.author_id);
  w.Optional("document.current_review_id", d.current_review_id, &Writer::Number);
  w.Optional<std::int32_t>("document.approved_version", d.approved_version, &Writer::Number);
  w.Optional("document.approved_at", d.approved_at, &Writer::Time);
  w.Text("document.ingest_status", ToString(d.ingest_status));
  w.Time("document.created_at", d.created_at);
  w.Time("document.updated_at", d.updated_at);
  w.Text("document.format", ToString(d.format));
}

void WriteReview(Writer& w, const Review& r) {
  w.Number("review.id", r.id);
  w.Number("review.document_id", r.document_id);
  w.Number("review.document_version", r.document_version);
  w.Text("review.status", ToString(r.status));
  w.Text("review.submitted_by", r.submitted_by);
  w.Time("review.submitted_at", r.submitted_at);
  w.Optional<std::string>("review.decided_by", r.decided_by, &Writer::Text);
  w.Optional("review.decided_at", r.decided_at, &Writer::Time);
  w.Optional<std::string>("review.comment", r.comment, &Writer::Text);
  w.Number("review.required_approvals", r.required_approvals);
  w.Number("review.approvals", static_cast<std::int64_t>(r.approvals.size()));
  for (std::size_t i = 0; i < r.approvals.size(); ++i) {
    const std::string at = "review.approval." + std::to_string(i) + ".";
    w.Text(at + "reviewer_id", r.approvals[i].reviewer_id);
    w.Optional<std::string>(at + "comment", r.approvals[i].comment, &Writer::Text);
    w.Time(at + "decided_at", r.approvals[i].decided_at);
  }
  w.Number("review.assignees", static_cast<std::int64_t>(r.assignees.size()));
  for (std::size_t i = 0; i < r.assignees.size(); ++i) {
    w.Text("review.assignee." + std::to_string(i), r.assignees[i]);
  }
}

void WriteComment(Writer& w, const ReviewComment& c) {
  w.Number("comment.id", c.id);
  w.Number("comment.review_id", c.review_id);
  w.Number("comment.document_version", c.document_version);
  w.Text("comment.author_id", c.author_id);
  w.Text("comment.body", c.body);
  w.Optional<std::int32_t>("comment.line", c.line, &Writer::Number);
  w.Optional<std::int64_t>("comment.parent_id", c.parent_id, &Writer::Number);
  w.Time("comment.created_at", c.created_at);
}

// The fields of an encoded outcome by name, each decoded as it is read.
class Reader {
 public:
  explicit Reader(std::string_view stored) {
    std::size_t at = 0;
    bool first = true;
    while (at < stored.size()) {
      const std::size_t end = stored.find('\n', at);
      if (end == std::string_view::npos) Malformed("its last line is not ended");
      const std::string_view line = stored.substr(at, end - at);
      at = end + 1;
      if (first) {
        ReadFormat(line);
        first = false;
        continue;
      }
      const std::size_t space = line.find(' ');
      if (space == std::string_view::npos || space == 0) {
        Malformed("a line is not \"name value\"");
      }
      const std::string name(line.substr(0, space));
      if (!fields_.emplace(name, line.substr(space + 1)).second) {
        Malformed("field " + name + " is given twice");
      }
    }
    if (first) Malformed("it is empty");
  }

  std::optional<std::string> OptionalText(const std::string& name) const {
    const auto it = fields_.find(name);
    if (it == fields_.end()) return std::nullopt;
    std::string out;
    const std::string_view raw = it->second;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '%') {
        out += raw[i];
        continue;
      }
      const int high = i + 2 < raw.size() ? HexDigit(raw[i + 1]) : -1;
      const int low = i + 2 < raw.size() ? HexDigit(raw[i + 2]) : -1;
      if (high < 0 || low < 0) Malformed("field " + name + " has a malformed %-escape");
      out += static_cast<char>(high * 16 + low);
      i += 2;
    }
    if (!IsStorableText(out)) Malformed("field " + name + " is not UTF-8 without NUL");
    return out;
  }
  std::string Text(const std::string& name) const {
    auto value = OptionalText(name);
    if (!value) Malformed("field " + name + " is missing");
    return std::move(*value);
  }
  template <typename T = std::int64_t>
  std::optional<T> OptionalNumber(const std::string& name) const {
    const auto text = OptionalText(name);
    if (!text) return std::nullopt;
    T value{};
    const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
    if (text->empty() || ec != std::errc{} || end != text->data() + text->size()) {
      Malformed("field " + name + " is not a number in range: '" + EscapeForLog(*text) + "'");
    }
    return value;
  }
  template <typename T = std::int64_t>
  T Number(const std::string& name) const {
    const auto value = OptionalNumber<T>(name);
    if (!value) Malformed("field " + name + " is missing");
    return *value;
  }
  std::optional<TimePoint> OptionalTime(const std::string& name) const {
    return Parsed(name, OptionalText(name), ParseTime);
  }
  TimePoint Time(const std::string& name) const { return Required(name, OptionalTime(name)); }
  // A required field parsed by `parse` (nullopt: malformed).
  template <typename Fn>
  auto Parse(const std::string& name, Fn parse) const {
    return Required(name, Parsed(name, OptionalText(name), parse));
  }

 private:
  static void ReadFormat(std::string_view line) {
    if (line.substr(0, kOutcomeFormat.size()) != kOutcomeFormat) {
      Malformed("it does not begin with \"" + std::string(kOutcomeFormat) + "\"");
    }
    const std::string_view version = line.substr(kOutcomeFormat.size());
    if (version != std::to_string(kOutcomeFormatVersion)) {
      Malformed("format version '" + EscapeForLog(version) + "' is not one this docgate reads (" +
                std::to_string(kOutcomeFormatVersion) + ")");
    }
  }
  template <typename Fn>
  static auto Parsed(const std::string& name, const std::optional<std::string>& text, Fn parse)
      -> decltype(parse(std::string_view{})) {
    if (!text) return std::nullopt;
    auto value = parse(*text);
    if (!value) Malformed("field " + name + " has no valid value: '" + EscapeForLog(*text) + "'");
    return value;
  }
  template <typename T>
  static T Required(const std::string& name, std::optional<T> value) {
    if (!value) Malformed("field " + name + " is missing");
    return std::move(*value);
  }

  std::map<std::string, std::string_view, std::less<>> fields_;
};

std::optional<Kind> ParseKind(std::string_view text) {
  for (const auto& [kind, name] : kKinds) {
    if (name == text) return kind;
  }
  return std::nullopt;
}

std::string_view KindName(Kind kind) {
  for (const auto& [k, name] : kKinds) {
    if (k == kind) return name;
  }
  return "?";
}

std::optional<ErrorCode> ParseErrorCode(std::string_view text) {
  for (int i = 0; i <= static_cast<int>(ErrorCode::kUnavailable); ++i) {
    if (text == ErrorCodeName(static_cast<ErrorCode>(i))) return static_cast<ErrorCode>(i);
  }
  return std::nullopt;
}

Document ReadDocument(const Reader& r) {
  Document d;
  d.id = r.Number("document.id");
  d.title = r.Text("document.title");
  d.status = r.Parse("document.status", ParseDocumentStatus);
  d.version = r.Number<std::int32_t>("document.version");
  d.author_id = r.Text("document.author_id");
  d.current_review_id = r.OptionalNumber("document.current_review_id");
  d.approved_version = r.OptionalNumber<std::int32_t>("document.approved_version");
  d.approved_at = r.OptionalTime("document.approved_at");
  d.ingest_status = r.Parse("document.ingest_status", ParseIngestStatus);
  d.created_at = r.Time("document.created_at");
  d.updated_at = r.Time("document.updated_at");
  // Outcomes stored before formats: their documents became `text` (migration 0017).
  d.format = r.OptionalText("document.format") ? r.Parse("document.format", ParseDocumentFormat)
                                               : DocumentFormat::kText;
  return d;
}

Review ReadReview(const Reader& r) {
  Review v;
  v.id = r.Number("review.id");
  v.document_id = r.Number("review.document_id");
  v.document_version = r.Number<std::int32_t>("review.document_version");
  v.status = r.Parse("review.status", ParseReviewStatus);
  v.submitted_by = r.Text("review.submitted_by");
  v.submitted_at = r.Time("review.submitted_at");
  v.decided_by = r.OptionalText("review.decided_by");
  v.decided_at = r.OptionalTime("review.decided_at");
  v.comment = r.OptionalText("review.comment");
  // Outcomes stored before quorums: one approval needed, none listed.
  v.required_approvals = r.OptionalNumber<std::int32_t>("review.required_approvals").value_or(1);
  const auto approvals = r.OptionalNumber<std::int32_t>("review.approvals").value_or(0);
  if (approvals < 0 || approvals > kMaxRequiredApprovals) {
    Malformed("review.approvals is " + std::to_string(approvals));
  }
  for (std::int32_t i = 0; i < approvals; ++i) {
    const std::string at = "review.approval." + std::to_string(i) + ".";
    v.approvals.push_back(Approval{r.Text(at + "reviewer_id"), r.OptionalText(at + "comment"),
                                   r.Time(at + "decided_at")});
  }
  // Outcomes stored before assignees: none.
  const auto assignees = r.OptionalNumber<std::int32_t>("review.assignees").value_or(0);
  if (assignees < 0 || static_cast<std::size_t>(assignees) > kMaxAssignees) {
    Malformed("review.assignees is " + std::to_string(assignees));
  }
  for (std::int32_t i = 0; i < assignees; ++i) {
    v.assignees.push_back(r.Text("review.assignee." + std::to_string(i)));
  }
  return v;
}

ReviewComment ReadComment(const Reader& r) {
  ReviewComment c;
  c.id = r.Number("comment.id");
  c.review_id = r.Number("comment.review_id");
  c.document_version = r.Number<std::int32_t>("comment.document_version");
  c.author_id = r.Text("comment.author_id");
  c.body = r.Text("comment.body");
  c.line = r.OptionalNumber<std::int32_t>("comment.line");
  c.parent_id = r.OptionalNumber("comment.parent_id");
  c.created_at = r.Time("comment.created_at");
  return c;
}

}  // namespace

std::string StoredDetail(std::string detail) {
  if (detail.size() <= kMaxStoredDetailBytes) return detail;
  static constexpr char kEllipsis[] = "\xE2\x80\xA6";  // U+2026 …
  std::string capped(Utf8Prefix(detail, kMaxStoredDetailBytes - (sizeof(kEllipsis) - 1)));
  return capped + kEllipsis;
}

IdempotentOutcome IdempotentOutcome::Created(Document document) {
  IdempotentOutcome outcome;
  outcome.kind = Kind::kCreated;
  outcome.document = std::move(document);
  return outcome;
}

IdempotentOutcome IdempotentOutcome::Transitioned(Document document, Review review) {
  IdempotentOutcome outcome;
  outcome.kind = Kind::kTransitioned;
  outcome.document = std::move(document);
  outcome.review = std::move(review);
  return outcome;
}

IdempotentOutcome IdempotentOutcome::Assigned(Review review) {
  IdempotentOutcome outcome;
  outcome.kind = Kind::kAssigned;
  outcome.review = std::move(review);
  return outcome;
}

IdempotentOutcome IdempotentOutcome::Commented(ReviewComment comment) {
  IdempotentOutcome outcome;
  outcome.kind = Kind::kCommented;
  outcome.comment = std::move(comment);
  return outcome;
}

IdempotentOutcome IdempotentOutcome::Refused(const Error& error) {
  IdempotentOutcome outcome;
  outcome.kind = Kind::kRefused;
  outcome.code = error.code;
  outcome.detail = StoredDetail(error.detail);
  return outcome;
}

std::string EncodeOutcome(const IdempotentOutcome& outcome) {
  Writer w;
  w.Text("kind", KindName(outcome.kind));
  if (outcome.kind == Kind::kRefused) {
    w.Text("refusal.code", ErrorCodeName(outcome.code));
    w.Text("refusal.detail", outcome.detail);
  } else if (outcome.kind == Kind::kCommented) {
    if (!outcome.comment) throw std::logic_error("a commented outcome without its comment");
    WriteComment(w, *outcome.comment);
  } else if (outcome.kind == Kind::kAssigned) {
    if (!outcome.review) throw std::logic_error("an assigned outcome without its review");
    WriteReview(w, *outcome.review);
  } else {
    WriteDocument(w, outcome.document);
    if (outcome.source) {
      w.Text("source.filename", outcome.source->filename);
      w.Text("source.media_type", outcome.source->media_type);
      w.Number("source.bytes", static_cast<std::int64_t>(outcome.source->bytes));
      w.Text("source.sha256", outcome.source->sha256);
    }
    if (outcome.kind == Kind::kTransitioned) {
      if (!outcome.review) throw std::logic_error("a transitioned outcome without its review");
      WriteReview(w, *outcome.review);
    }
  }
  std::string stored = std::move(w).Done();
  if (stored.size() > kMaxStoredOutcomeBytes) {
    throw std::length_error("an outcome of " + std::to_string(stored.size()) +
                            " bytes encoded is too long to store");
  }
  return stored;
}

bool IsEncodedOutcome(std::string_view stored) {
  return stored.substr(0, kOutcomeFormat.size()) == kOutcomeFormat;
}

IdempotentOutcome DecodeOutcome(std::string_view stored) {
  const Reader r(stored);
  IdempotentOutcome outcome;
  outcome.kind = r.Parse("kind", ParseKind);
  if (outcome.kind == Kind::kRefused) {
    outcome.code = r.Parse("refusal.code", ParseErrorCode);
    outcome.detail = r.Text("refusal.detail");
    return outcome;
  }
  if (outcome.kind == Kind::kCommented) {
    outcome.comment = ReadComment(r);
    return outcome;
  }
  if (outcome.kind == Kind::kAssigned) {
    outcome.review = ReadReview(r);
    return outcome;
  }
  outcome.document = ReadDocument(r);
  if (r.OptionalText("source.filename")) {
    outcome.source = ImportSource{r.Text("source.filename"), r.Text("source.media_type"),
                                  r.Number<std::uint64_t>("source.bytes"), r.Text("source.sha256")};
  }
  if (outcome.kind == Kind::kTransitioned) outcome.review = ReadReview(r);
  return outcome;
}

}  // namespace docgate
