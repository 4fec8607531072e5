#pragma once

// Readable values for property failures, and the one comparison the model tests make: the
// system's answer against the model's prediction, failing the RapidCheck case with both shown.

#include <rapidcheck.h>

#include <cstdint>
#include <exception>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "app/ports/consumer_transaction.h"
#include "app/ports/inbox_store.h"
#include "core/error.h"
#include "core/model.h"

namespace docgate {

inline std::string ShowTime(TimePoint at) { return std::to_string(at.time_since_epoch().count()); }

template <typename T>
std::string ShowOptional(const std::optional<T>& value) {
  if (!value) return "null";
  std::ostringstream out;
  if constexpr (std::is_same_v<T, TimePoint>) {
    out << ShowTime(*value);
  } else {
    out << *value;
  }
  return out.str();
}

// Long texts (titles and reasons of thousands of characters) by their length.
inline std::string ShowText(std::string_view text) {
  if (text.size() <= 40) return "\"" + std::string(text) + "\"";
  return "<" + std::to_string(text.size()) + " bytes>";
}

inline std::string Show(const Document& d) {
  std::ostringstream out;
  out << "Document{id=" << d.id << " title=" << ShowText(d.title) << " " << ToString(d.status)
      << " v" << d.version << " author=" << d.author_id
      << " review=" << ShowOptional(d.current_review_id)
      << " approved_v=" << ShowOptional(d.approved_version)
      << " approved_at=" << ShowOptional(d.approved_at) << " ingest=" << ToString(d.ingest_status)
      << " created=" << ShowTime(d.created_at) << " updated=" << ShowTime(d.updated_at) << "}";
  return out.str();
}

inline std::string Show(const Review& r) {
  std::ostringstream out;
  out << "Review{id=" << r.id << " doc=" << r.document_id << " v" << r.document_version << " "
      << ToString(r.status) << " by=" << r.submitted_by << " at=" << ShowTime(r.submitted_at)
      << " decided_by=" << ShowOptional(r.decided_by)
      << " decided_at=" << ShowOptional(r.decided_at)
      << " comment=" << (r.comment ? ShowText(*r.comment) : "null") << "}";
  return out.str();
}

inline std::string Show(const VersionSummary& v) {
  return "Version{v" + std::to_string(v.version) + " " + ShowText(v.title) + " by=" + v.edited_by +
         " at=" + std::to_string(v.created_at.time_since_epoch().count()) +
         " review=" + (v.review_id ? std::to_string(*v.review_id) : "-") + " " +
         (v.review_status ? std::string(ToString(*v.review_status)) : "-") + "}";
}

inline std::string Show(const OutboxEvent& e) {
  std::ostringstream out;
  out << "Event{seq=" << e.sequence << " " << e.event_id << " " << ToString(e.type)
      << " doc=" << e.document_id << " review=" << e.review_id << " v" << e.version
      << " actor=" << e.actor_id << " at=" << ShowTime(e.occurred_at);
  if (e.reviewer_id) out << " reviewer=" << *e.reviewer_id;
  if (e.comment_id) out << " comment=" << *e.comment_id;
  out << "}";
  return out.str();
}

inline std::string Show(const ParkedEvent& p) {
  return "Parked{" + p.consumer + " " + Show(p.event) + " attempts=" + std::to_string(p.attempts) +
         " error=" + ShowText(p.last_error) + " at=" + ShowTime(p.parked_at) + "}";
}

inline std::string Show(const ConsumerFailure& f) {
  return "Failure{attempts=" + std::to_string(f.attempts) + (f.parked ? " parked}" : "}");
}

inline std::string Show(InboxState state) {
  switch (state) {
    case InboxState::kNew:
      return "new";
    case InboxState::kDone:
      return "done";
    case InboxState::kParked:
      return "parked";
  }
  return "?";
}

// An outcome: success, or the API.md code of the expected failure.
inline std::string Show(const std::optional<ErrorCode>& error) {
  return error ? ErrorCodeName(*error) : "success";
}

inline std::string Show(std::int64_t n) { return std::to_string(n); }
inline std::string Show(const std::string& s) { return ShowText(s); }

template <typename T>
std::string Show(const std::vector<T>& items) {
  std::string out = "[";
  for (const T& item : items) out += (out.size() > 1 ? ", " : "") + Show(item);
  return out + "]";
}

// Fails the current case unless the system's `actual` equals the model's `expected`.
template <typename T>
void ExpectSame(const T& actual, const T& expected, std::string_view what) {
  if (actual == expected) return;
  RC_FAIL(std::string(what) + "\n  model:  " + Show(expected) + "\n  system: " + Show(actual));
}

// The same for values compared by their full rendering.
inline void ExpectSameText(const std::string& actual, const std::string& expected,
                           std::string_view what) {
  if (actual == expected) return;
  RC_FAIL(std::string(what) + "\n  model:  " + expected + "\n  system: " + actual);
}

// Runs `body`, naming `where` (the command being run, or a final check) in its failure: an
// assertion's, or an exception the system threw.
template <typename Body>
void Within(const std::string& where, Body&& body) {
  try {
    body();
  } catch (rc::detail::CaseResult& result) {
    if (result.type == rc::detail::CaseResult::Type::Failure) {
      result.description = "in " + where + ":\n" + result.description;
    }
    throw;
  } catch (const std::exception& e) {
    RC_FAIL("in " + where + ": the system threw: " + e.what());
  }
}

}  // namespace docgate
