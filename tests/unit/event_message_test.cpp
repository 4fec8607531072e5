// The JSON body of an event message (shared/API.md "Events").

#include "adapters/amqp/event_message.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/time_format.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;

OutboxEvent Approved() {
  OutboxEvent event;
  event.sequence = 99;
  event.event_id = "6f1c2a4e-8b1d-4f5e-9a57-2d0c3b9e7f10";
  event.type = EventType::kApproved;
  event.document_id = 17;
  event.review_id = 40;
  event.version = 3;
  event.actor_id = "bob";
  event.occurred_at = *ParseTime("2026-11-29T14:00:00.123Z");
  return event;
}

TEST(EventMessage, BodyHasExactlyTheApiFieldsAndTypes) {
  EXPECT_EQ(EncodeEventBody(Approved()),
            R"({"event_id":"6f1c2a4e-8b1d-4f5e-9a57-2d0c3b9e7f10","type":"document.approved",)"
            R"("document_id":"17","review_id":"40","version":3,"actor_id":"bob",)"
            R"("occurred_at":"2026-11-29T14:00:00.123Z"})");
  const auto body = nlohmann::json::parse(EncodeEventBody(Approved()));
  EXPECT_EQ(body.size(), 7u);
  EXPECT_TRUE(body["document_id"].is_string());
  EXPECT_TRUE(body["review_id"].is_string());
  EXPECT_TRUE(body["version"].is_number_integer());
}

TEST(EventMessage, RoundTripsEveryTypeWithoutTheSequence) {
  for (const auto type :
       {EventType::kSubmitted, EventType::kApproved, EventType::kRejected, EventType::kWithdrawn}) {
    OutboxEvent event = Approved();
    event.type = type;
    event.document_id = 9'007'199'254'740'993;  // beyond a double's exact integers
    event.actor_id = "ünïcode \"quoted\" \\ actor";
    const auto decoded = DecodeEventBody(EncodeEventBody(event));
    ASSERT_TRUE(decoded.has_value()) << ToString(type);
    event.sequence = 0;
    EXPECT_EQ(*decoded, event);
  }
}

TEST(EventMessage, ExtraFieldsAreIgnored) {
  auto body = nlohmann::json::parse(EncodeEventBody(Approved()));
  body["schema"] = 2;
  const auto decoded = DecodeEventBody(body.dump());
  ASSERT_TRUE(decoded.has_value());
  EXPECT_EQ(decoded->event_id, Approved().event_id);
}

TEST(EventMessage, MalformedBodiesAreRefused) {
  const auto with = [](const char* field, nlohmann::json value) {
    auto body = nlohmann::json::parse(EncodeEventBody(Approved()));
    body[field] = std::move(value);
    return body.dump();
  };
  const auto without = [](const char* field) {
    auto body = nlohmann::json::parse(EncodeEventBody(Approved()));
    body.erase(field);
    return body.dump();
  };
  std::vector<std::string> bodies{"", "not json", "[]", "null", R"({"event_id":"x")"};
  for (const char* field :
       {"event_id", "type", "document_id", "review_id", "version", "actor_id", "occurred_at"}) {
    bodies.push_back(without(field));
  }
  const std::vector<std::string> wrong_values{
      with("event_id", ""),
      with("event_id", 5),
      with("type", "document.archived"),
      with("type", nullptr),
      with("document_id", 17),
      with("document_id", "-17"),
      with("document_id", "+17"),
      with("document_id", "17x"),
      with("document_id", ""),
      with("document_id", " 17"),
      with("document_id", "9223372036854775808"),  // > int64
      with("review_id", 40.0),
      with("review_id", "4e1"),
      with("version", "3"),
      with("version", 3.5),
      with("version", 2147483648LL),
      with("version", -2147483649LL),
      with("version", 18446744073709551615ULL),
      with("actor_id", nullptr),
      with("actor_id", 7),
      with("occurred_at", "2026-11-29T14:00:00Z"),
      with("occurred_at", "2026-02-30T14:00:00.000Z"),
      with("occurred_at", 1795960800123LL)};
  bodies.insert(bodies.end(), wrong_values.begin(), wrong_values.end());
  for (const std::string& body : bodies) {
    EXPECT_FALSE(DecodeEventBody(body).has_value()) << body;
  }
}

// Found with fuzz/json_body_fuzz.cpp's NUL finding, which applies here too: nlohmann's lexer
// takes a NUL byte for the end of the input, so a body decoded up to its first NUL.
TEST(EventMessage, ABodyWithANulByteIsRefused) {
  const std::string body = EncodeEventBody(Approved());
  ASSERT_TRUE(DecodeEventBody(body).has_value());
  EXPECT_FALSE(DecodeEventBody(body + std::string("\0", 1)).has_value());
  EXPECT_FALSE(DecodeEventBody(body + std::string("\0garbage", 8)).has_value());
}

TEST(EventMessage, BoundaryValuesAreAccepted) {
  OutboxEvent event = Approved();
  event.sequence = 0;
  event.document_id = 0;
  event.review_id = 9'223'372'036'854'775'807;
  event.version = -2147483647 - 1;
  event.actor_id = "";
  const auto decoded = DecodeEventBody(EncodeEventBody(event));
  ASSERT_TRUE(decoded.has_value());
  EXPECT_EQ(*decoded, event);
}

}  // namespace
}  // namespace docgate
