// Invariant: DecodeEventBody (adapters/amqp/event_message.h) reads any message body a broker
// delivers without throwing, and whatever event it decodes, EncodeEventBody writes as a body that
// decodes to the same event. An event with valid UTF-8 text, non-negative ids and a time of years
// 0..9999 survives EncodeEventBody then DecodeEventBody unchanged.
// The input's first byte picks the check: a body to decode, or the fields of an event (bytes for
// type, ids, version and time, then event_id '\n' actor_id).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "adapters/amqp/event_message.h"
#include "core/utf8.h"
#include "fuzz_support.h"

namespace {

using docgate::OutboxEvent;
using docgate::fuzz::AsText;
using docgate::fuzz::ByteReader;

void CheckDecode(std::string_view body) {
  const auto event = docgate::DecodeEventBody(body);
  if (!event) return;
  FUZZ_CHECK(event->sequence == 0);
  const std::string again = docgate::EncodeEventBody(*event);
  const auto decoded = docgate::DecodeEventBody(again);
  FUZZ_CHECK(decoded.has_value() && *decoded == *event, again);
}

void CheckEncode(ByteReader input) {
  constexpr docgate::EventType kTypes[] = {
      docgate::EventType::kSubmitted, docgate::EventType::kApproved, docgate::EventType::kRejected,
      docgate::EventType::kWithdrawn};
  OutboxEvent event;
  event.type = kTypes[input.Byte() % 4];
  const auto number = [&input] {
    std::uint64_t value = 0;
    for (int i = 0; i < 8; ++i) value = value << 8 | input.Byte();
    return value;
  };
  event.document_id = static_cast<std::int64_t>(number() >> 1);
  event.review_id = static_cast<std::int64_t>(number() >> 1);
  event.version = static_cast<std::int32_t>(number());
  // 0000-01-01 .. 9999-12-31, in milliseconds since the epoch.
  constexpr std::int64_t kFirst = -62'167'219'200'000;
  constexpr std::int64_t kSpan = 315'569'520'000'000;
  event.occurred_at = docgate::TimePoint{
      std::chrono::milliseconds{kFirst + static_cast<std::int64_t>(number() % kSpan)}};
  const auto [event_id, actor_id] = docgate::fuzz::SplitOnce(input.Rest(), "\n");
  event.event_id = std::string(event_id);
  event.actor_id = std::string(actor_id.value_or(""));
  if (event.event_id.empty() || !docgate::Utf8Length(event.event_id) ||
      !docgate::Utf8Length(event.actor_id)) {
    return;
  }
  const std::string body = docgate::EncodeEventBody(event);
  const auto decoded = docgate::DecodeEventBody(body);
  FUZZ_CHECK(decoded.has_value() && *decoded == event, body);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ByteReader input(AsText(data, size));
  if (input.Byte() % 2 == 0) {
    CheckDecode(input.Rest());
  } else {
    CheckEncode(input);
  }
  return 0;
}
