#include "adapters/amqp/event_message.h"

#include <charconv>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/time_format.h"

namespace docgate {
namespace {

using Json = nlohmann::ordered_json;

// The member `name` of `object`, or nullptr.
const Json* Field(const Json& object, const char* name) {
  const auto it = object.find(name);
  return it == object.end() ? nullptr : &*it;
}

const std::string* Text(const Json& object, const char* name) {
  const Json* value = Field(object, name);
  return value != nullptr && value->is_string() ? &value->get_ref<const std::string&>() : nullptr;
}

// A non-negative decimal int64 in a string ("17"), as API.md writes ids.
std::optional<std::int64_t> DecimalId(const Json& object, const char* name) {
  const std::string* text = Text(object, name);
  if (text == nullptr || text->empty() || text->front() < '0' || text->front() > '9') {
    return std::nullopt;
  }
  std::int64_t id = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), id);
  if (ec != std::errc{} || end != text->data() + text->size()) return std::nullopt;
  return id;
}

// A JSON integer that fits in int32 (3, not 3.0 or "3").
std::optional<std::int32_t> Int32(const Json& object, const char* name) {
  const Json* value = Field(object, name);
  if (value == nullptr || !value->is_number_integer()) return std::nullopt;
  constexpr auto kMin = std::numeric_limits<std::int32_t>::min();
  constexpr auto kMax = std::numeric_limits<std::int32_t>::max();
  if (value->is_number_unsigned()) {
    const auto number = value->get<std::uint64_t>();
    if (number > static_cast<std::uint64_t>(kMax)) return std::nullopt;
    return static_cast<std::int32_t>(number);
  }
  const auto number = value->get<std::int64_t>();
  if (number < kMin || number > kMax) return std::nullopt;
  return static_cast<std::int32_t>(number);
}

}  // namespace

std::string EncodeEventBody(const OutboxEvent& event) {
  // ordered_json keeps API.md's field order, which makes the body easy to read in a broker UI.
  Json body{{"event_id", event.event_id},
            {"type", ToString(event.type)},
            {"document_id", std::to_string(event.document_id)},
            {"review_id", std::to_string(event.review_id)},
            {"version", event.version},
            {"actor_id", event.actor_id},
            {"occurred_at", FormatTime(event.occurred_at)}};
  // The review events' own fields (API.md v1.2 "Events"), only where they apply.
  if (event.reviewer_id) body["reviewer_id"] = *event.reviewer_id;
  if (event.comment_id) body["comment_id"] = std::to_string(*event.comment_id);
  return body.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::optional<OutboxEvent> DecodeEventBody(std::string_view body) {
  // nlohmann's lexer takes a NUL byte for the end of the input, which JSON text never holds.
  if (body.find('\0') != std::string_view::npos) return std::nullopt;
  const Json object = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!object.is_object()) return std::nullopt;

  const std::string* event_id = Text(object, "event_id");
  const std::string* type_text = Text(object, "type");
  const std::string* actor_id = Text(object, "actor_id");
  const std::string* occurred_text = Text(object, "occurred_at");
  const auto document_id = DecimalId(object, "document_id");
  const auto review_id = DecimalId(object, "review_id");
  const auto version = Int32(object, "version");
  if (event_id == nullptr || event_id->empty() || type_text == nullptr || actor_id == nullptr ||
      occurred_text == nullptr || !document_id || !review_id || !version) {
    return std::nullopt;
  }
  const auto type = ParseEventType(*type_text);
  const auto occurred_at = ParseTime(*occurred_text);
  if (!type || !occurred_at) return std::nullopt;
  const std::string* reviewer_id = Text(object, "reviewer_id");
  const auto comment_id = DecimalId(object, "comment_id");
  // Present, each must be well formed: a body that names a comment unreadably is not this event.
  if ((reviewer_id == nullptr && Field(object, "reviewer_id") != nullptr) ||
      (!comment_id && Field(object, "comment_id") != nullptr)) {
    return std::nullopt;
  }
  OutboxEvent event;
  event.event_id = *event_id;
  event.type = *type;
  event.document_id = *document_id;
  event.review_id = *review_id;
  event.version = *version;
  event.actor_id = *actor_id;
  event.occurred_at = *occurred_at;
  if (reviewer_id != nullptr) event.reviewer_id = *reviewer_id;
  event.comment_id = comment_id;
  return event;
}

}  // namespace docgate
