// Invariant: the stored form of an idempotent outcome (app/idempotent_outcome.h, ADR 0007) gives
// the outcome back: Decode(Encode(o)) == o for every outcome Encode accepts, and Encode refuses
// only with std::invalid_argument (text that is not UTF-8 without NUL) or std::length_error.
// DecodeOutcome of any text either throws StorageError or gives an outcome that encodes to a
// fixed point, nothing else.
// The input's first byte picks the check; the rest is its argument, parts split at '\n'.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "app/idempotent_outcome.h"
#include "fuzz_support.h"

namespace {

using docgate::IdempotentOutcome;
using docgate::fuzz::AsText;
using docgate::fuzz::ByteReader;

void CheckFixedPoint(const IdempotentOutcome& outcome) {
  std::string stored;
  try {
    stored = docgate::EncodeOutcome(outcome);
  } catch (const std::invalid_argument&) {
    return;  // refused, as documented
  } catch (const std::length_error&) {
    return;
  }
  FUZZ_CHECK(docgate::IsEncodedOutcome(stored), stored);
  FUZZ_CHECK(docgate::DecodeOutcome(stored) == outcome, stored);
  FUZZ_CHECK(docgate::EncodeOutcome(docgate::DecodeOutcome(stored)) == stored, stored);
}

void CheckDecode(std::string_view text) {
  IdempotentOutcome decoded;
  try {
    decoded = docgate::DecodeOutcome(text);
  } catch (const docgate::StorageError&) {
    return;
  }
  CheckFixedPoint(decoded);
}

// An outcome from the input: the selector's bits choose the kind and which optionals are set,
// the parts give the text fields, their lengths the numbers and times.
void CheckRoundTrip(std::uint8_t shape, std::string_view text) {
  const auto parts = docgate::fuzz::Split(text, "\n");
  const auto part = [&](std::size_t i) {
    return i < parts.size() ? std::string(parts[i]) : std::string();
  };
  const auto time = [&](std::size_t i) {
    return docgate::TimePoint{std::chrono::milliseconds(part(i).size() * 86'400'123LL)};
  };
  IdempotentOutcome outcome;
  docgate::Document& d = outcome.document;
  d.id = static_cast<std::int64_t>(part(0).size()) - 3;
  d.title = part(1);
  d.status = static_cast<docgate::DocumentStatus>(shape % 4);
  d.version = static_cast<std::int32_t>(part(2).size());
  d.author_id = part(3);
  if (shape & 0x04) d.current_review_id = static_cast<std::int64_t>(part(4).size());
  if (shape & 0x08) d.approved_version = static_cast<std::int32_t>(part(5).size());
  if (shape & 0x08) d.approved_at = time(6);
  d.created_at = time(7);
  d.updated_at = time(8);
  switch ((shape >> 4) % 3) {
    case 0:
      outcome = IdempotentOutcome::Created(d);
      break;
    case 1: {
      docgate::Review r;
      r.id = static_cast<std::int64_t>(part(9).size());
      r.document_id = d.id;
      r.status = static_cast<docgate::ReviewStatus>((shape >> 6) % 4);
      r.submitted_by = part(10);
      r.submitted_at = time(11);
      if (shape & 0x40) r.decided_by = part(12);
      if (shape & 0x40) r.decided_at = time(13);
      if (shape & 0x80) r.comment = part(14);
      outcome = IdempotentOutcome::Transitioned(d, r);
      break;
    }
    default:
      outcome = IdempotentOutcome::Refused(docgate::Error{
          static_cast<docgate::ErrorCode>(shape % 12), std::string(text), std::nullopt});
      break;
  }
  CheckFixedPoint(outcome);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ByteReader input(AsText(data, size));
  const std::uint8_t selector = input.Byte();
  if (selector % 2 == 0) {
    CheckDecode(input.Rest());
  } else {
    CheckRoundTrip(input.Byte(), input.Rest());
  }
  return 0;
}
