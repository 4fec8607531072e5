// Invariant: ValidateMongoUri (adapters/mongo/mongo_uri.h, libmongoc's parser) reads any text
// without throwing, and neither its message nor what libmongoc logs meanwhile (forwarded to
// docgate's log) echoes the password of a URI written by the rules: both are the same whatever
// the password's letters (fuzz_support.h DistinctivePassword). WithoutPassword leaves no
// occurrence of such a password, as written or percent-decoded, in a text.
// Input: the URI, then optionally '\n' and a text in which "$P" stands for the URI's password
// as written and "$D" for it percent-decoded.

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "adapters/mongo/mongo_uri.h"
#include "fuzz_support.h"

namespace {

using docgate::fuzz::AsText;
using docgate::fuzz::WithoutEitherPassword;

std::ostringstream& Log() {
  static std::ostringstream log;
  return log;
}

// What ValidateMongoUri says about `uri`, and what was logged meanwhile.
std::string Outcome(const std::string& uri) {
  Log().str("");
  const auto problem = docgate::ValidateMongoUri(uri);
  return (problem ? "problem: " + *problem : std::string("valid")) + "\nlog: " + Log().str();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_st>(Log());
  sink->set_pattern("%l %v");
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("fuzz", sink));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto [uri_text, marked] = docgate::fuzz::SplitOnce(AsText(data, size), "\n");
  const std::string uri(uri_text);
  const std::string outcome = Outcome(uri);
  if (const auto distinctive = docgate::fuzz::DistinctivePassword(uri)) {
    const std::string other = Outcome(docgate::fuzz::WithOtherPassword(uri, *distinctive));
    const std::string said = WithoutEitherPassword(outcome, uri, *distinctive);
    FUZZ_CHECK(said == WithoutEitherPassword(other, uri, *distinctive), outcome + " | " + other);
  }
  const auto password = docgate::fuzz::WellFormedPassword(uri);
  if (password && marked) {
    docgate::fuzz::CheckRedacts(*marked, uri, *password, [&](const std::string& text) {
      return docgate::WithoutPassword(text, uri);
    });
  }
  return 0;
}
