#include "adapters/pg/pg_rows.h"

#include <charconv>
#include <nlohmann/json.hpp>

namespace docgate::pg {

std::int64_t Millis(TimePoint t) { return t.time_since_epoch().count(); }

TimePoint FromMillis(std::int64_t ms) { return TimePoint{std::chrono::milliseconds{ms}}; }

std::optional<std::string> Text(const std::optional<std::int64_t>& v) {
  return v ? std::optional<std::string>(std::to_string(*v)) : std::nullopt;
}

std::optional<std::string> Text(const std::optional<std::int32_t>& v) {
  return v ? std::optional<std::string>(std::to_string(*v)) : std::nullopt;
}

std::optional<std::string> Text(const std::optional<TimePoint>& v) {
  return v ? std::optional<std::string>(std::to_string(Millis(*v))) : std::nullopt;
}

std::optional<std::string> Text(std::string_view v) { return std::string(v); }

const char* Checked(const std::string& value) {
  if (value.find('\0') != std::string::npos) {
    throw StorageError("postgres: text with a NUL character cannot be stored");
  }
  return value.c_str();
}

const char* Checked(const std::optional<std::string>& value) {
  return value ? Checked(*value) : nullptr;
}

Document ToDocument(const pqxx::row& row) {
  Document doc;
  doc.id = row[0].as<std::int64_t>();
  doc.title = row[1].as<std::string>();
  doc.status = Enum<DocumentStatus>(row[2], ParseDocumentStatus, "document status");
  doc.version = row[3].as<std::int32_t>();
  doc.author_id = row[4].as<std::string>();
  doc.current_review_id = Nullable<std::int64_t>(row[5]);
  doc.approved_version = Nullable<std::int32_t>(row[6]);
  if (const auto at = Nullable<std::int64_t>(row[7])) doc.approved_at = FromMillis(*at);
  doc.ingest_status = Enum<IngestStatus>(row[8], ParseIngestStatus, "ingest status");
  doc.created_at = FromMillis(row[9].as<std::int64_t>());
  doc.updated_at = FromMillis(row[10].as<std::int64_t>());
  doc.format = Enum<DocumentFormat>(row[11], ParseDocumentFormat, "document format");
  return doc;
}

DocumentWithContent ToDocumentWithContent(const pqxx::row& row) {
  return DocumentWithContent{ToDocument(row), Nullable<std::string>(row[12])};
}

Review ToReview(const pqxx::row& row) {
  Review review;
  review.id = row[0].as<std::int64_t>();
  review.document_id = row[1].as<std::int64_t>();
  review.document_version = row[2].as<std::int32_t>();
  review.status = Enum<ReviewStatus>(row[3], ParseReviewStatus, "review status");
  review.submitted_by = row[4].as<std::string>();
  review.submitted_at = FromMillis(row[5].as<std::int64_t>());
  review.decided_by = Nullable<std::string>(row[6]);
  if (const auto at = Nullable<std::int64_t>(row[7])) review.decided_at = FromMillis(*at);
  review.comment = Nullable<std::string>(row[8]);
  review.required_approvals = row[9].as<std::int32_t>();
  // [[reviewer_id, comment or null, decided_at], ...] and [reviewer_id, ...], or NULL for none.
  const auto people = [&](int column) {
    const auto text = Nullable<std::string>(row[column]);
    if (!text) return nlohmann::json::array();
    auto parsed = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (!parsed.is_array()) throw StorageError("postgres: a review's people are not a JSON array");
    return parsed;
  };
  try {
    for (const auto& approval : people(10)) {
      const auto& comment = approval.at(1);
      review.approvals.push_back(
          Approval{approval.at(0).get<std::string>(),
                   comment.is_null() ? std::nullopt : std::optional(comment.get<std::string>()),
                   FromMillis(approval.at(2).get<std::int64_t>())});
    }
    for (const auto& assignee : people(11)) review.assignees.push_back(assignee.get<std::string>());
  } catch (const nlohmann::json::exception& e) {
    throw StorageError(std::string("postgres: a review's people are malformed: ") + e.what());
  }
  return review;
}

OutboxEvent EventAt(const pqxx::row& row, int first) {
  OutboxEvent event;
  event.event_id = row[first].as<std::string>();
  event.type = Enum<EventType>(row[first + 1], ParseEventType, "event type");
  event.document_id = row[first + 2].as<std::int64_t>();
  event.review_id = row[first + 3].as<std::int64_t>();
  event.version = row[first + 4].as<std::int32_t>();
  event.actor_id = row[first + 5].as<std::string>();
  event.occurred_at = FromMillis(row[first + 6].as<std::int64_t>());
  event.reviewer_id = Nullable<std::string>(row[first + 7]);
  event.comment_id = Nullable<std::int64_t>(row[first + 8]);
  return event;
}

OutboxEvent ToEvent(const pqxx::row& row) {
  OutboxEvent event = EventAt(row, 1);
  event.sequence = row[0].as<std::int64_t>();
  return event;
}

ParkedEvent ToParked(const pqxx::row& row) {
  ParkedEvent parked;
  parked.consumer = row[0].as<std::string>();
  parked.event = EventAt(row, 1);
  parked.attempts = row[10].as<int>();
  parked.last_error = Nullable<std::string>(row[11]).value_or("");
  parked.parked_at = FromMillis(row[12].as<std::int64_t>());
  return parked;
}

PreviewRecord ToPreview(const pqxx::row& row) {
  return PreviewRecord{row[0].as<DocumentId>(), row[1].as<std::int32_t>(), row[2].as<std::string>(),
                       FromMillis(row[3].as<std::int64_t>())};
}

ChunkHit ToHit(const pqxx::row& row) {
  return ChunkHit{row[0].as<DocumentId>(),  row[1].as<std::int32_t>(), row[2].as<std::string>(),
                  row[3].as<std::string>(), row[4].as<double>(),       row[5].as<std::int32_t>(),
                  row[6].as<std::string>()};
}

std::string ToText(const pqxx::row& row) { return row[0].as<std::string>(); }

std::string Describe(const char* operation, std::int64_t id) {
  return std::string(operation) + " " + std::to_string(id);
}

std::string IdArray(const std::vector<std::int64_t>& ids) {
  std::string array = "{";
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) array += ',';
    array += std::to_string(ids[i]);
  }
  array += '}';
  return array;
}

std::string TextArray(const std::vector<std::string>& texts) {
  std::string array = "{";
  for (std::size_t i = 0; i < texts.size(); ++i) {
    if (i > 0) array += ',';
    Checked(texts[i]);
    array += '"';
    for (const char c : texts[i]) {
      if (c == '"' || c == '\\') array += '\\';
      array += c;
    }
    array += '"';
  }
  array += '}';
  return array;
}

std::string FloatArray(const std::vector<double>& values) {
  std::string array = "{";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) array += ',';
    char digits[32];
    const auto written = std::to_chars(digits, digits + sizeof digits, values[i]);
    array.append(digits, written.ptr);
  }
  array += '}';
  return array;
}

}  // namespace docgate::pg
