// Invariant: a request that the HTTP parser lets through, whatever its method, target, headers
// and body, gets an answer from the real RestApi (routing, authentication, DTO decoding, the use
// cases and Idempotency-Key, over the in-memory fakes) that is never 5xx - no input is a server
// error - and is well formed: header values hold no CR, LF or NUL; a 4xx is application/problem+
// json with type, title, status (the response's), detail and code, 401 with WWW-Authenticate, 405
// with Allow; a 2xx has a JSON body, except the console's page and assets (text, with an ETag and
// a Content-Security-Policy; 304 without a body when If-None-Match names the ETag). A POST sent
// again under the same Idempotency-Key gets the same status and body, marked replayed exactly when
// the first answer was stored. What RestApi::Screen answers from the header alone (the server
// asks it before reading a body) is exactly Handle's answer, status and body.
//
// Input: up to 8 requests separated by a "\n---\n" line, each
//   METHOD TARGET\nName: value\n...\n\nbody
// where a header value "@author", "@reviewer", "@admin" or "@both" stands for "Bearer <token>"
// of alice (author), bob (reviewer), carol (admin) or dave (author and reviewer). Before them,
// alice has created documents 1 and 2 and submitted 1 (review 1). A request the HTTP parser would
// refuse (a method that is not a token, a target with a control character or a space, a header
// value with a control character) is skipped.

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/http/idempotency_codec.h"
#include "core/utf8.h"
#include "fuzz_support.h"
#include "support/fake_backed_api.h"

namespace {

namespace http = boost::beast::http;
using docgate::FakeBackedApi;
using docgate::HttpRequest;
using docgate::HttpResponse;
using docgate::fuzz::AsText;
using nlohmann::json;

constexpr std::size_t kMaxRequests = 8;

std::string_view View(boost::beast::string_view text) { return {text.data(), text.size()}; }
boost::beast::string_view Beast(std::string_view text) { return {text.data(), text.size()}; }

bool IsTokenChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool IsToken(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), IsTokenChar);
}

bool IsTargetChar(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte > 0x20 && byte != 0x7F;
}

bool IsValueChar(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte == '\t' || (byte >= 0x20 && byte != 0x7F);
}

std::string_view TrimmedValue(std::string_view value) {
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  return value;
}

// "Bearer <token>" for each "@name", signed once: every FakeBackedApi's clock starts at the same
// time, so the tokens hold for each input's fresh one.
const std::map<std::string, std::string, std::less<>>& Tokens() {
  static const auto tokens = [] {
    FakeBackedApi signer;
    return std::map<std::string, std::string, std::less<>>{
        {"@author", signer.Bearer("alice", {"author"})},
        {"@reviewer", signer.Bearer("bob", {"reviewer"})},
        {"@admin", signer.Bearer("carol", {"admin"})},
        {"@both", signer.Bearer("dave", {"author", "reviewer"})}};
  }();
  return tokens;
}

// The request in `text`, or nullopt when the HTTP parser would not have let it through.
std::optional<HttpRequest> ParseRequest(std::string_view text) {
  auto line_end = text.find('\n');
  const std::string_view line = text.substr(0, line_end);
  text = line_end == std::string_view::npos ? std::string_view{} : text.substr(line_end + 1);
  const auto space = line.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const std::string_view method = line.substr(0, space);
  const std::string_view target = line.substr(space + 1);
  if (!IsToken(method) || target.empty() ||
      !std::all_of(target.begin(), target.end(), IsTargetChar)) {
    return std::nullopt;
  }
  HttpRequest request;
  request.method_string(Beast(method));
  request.target(Beast(target));
  request.version(11);
  while (!text.empty()) {
    line_end = text.find('\n');
    const std::string_view field = text.substr(0, line_end);
    text = line_end == std::string_view::npos ? std::string_view{} : text.substr(line_end + 1);
    if (field.empty()) break;
    const auto colon = field.find(':');
    if (colon == std::string_view::npos || !IsToken(field.substr(0, colon))) return std::nullopt;
    std::string_view value = TrimmedValue(field.substr(colon + 1));
    if (!std::all_of(value.begin(), value.end(), IsValueChar)) return std::nullopt;
    if (const auto token = Tokens().find(value); token != Tokens().end()) value = token->second;
    // As std::string, NUL-terminated like the names Beast's parser inserts (followed by ':'):
    // Beast 1.74's iequals reads one byte past the end of a name whose last character differs
    // from its neighbour's in case only.
    request.insert(std::string(field.substr(0, colon)), std::string(value));
  }
  request.body() = std::string(text);
  request.prepare_payload();
  return request;
}

std::string ProblemType(std::string_view code) {
  std::string type = "urn:docgate:problem:";
  for (const char c : code) {
    type += c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return type;
}

// The console's page and assets (/ and /console/...) are the only answers that are not JSON.
bool IsConsoleTarget(std::string_view target) {
  const std::string_view path = target.substr(0, target.find('?'));
  return path == "/" || path.starts_with("/console/");
}

void CheckWellFormed(const HttpRequest& request, const HttpResponse& response) {
  const unsigned status = response.result_int();
  FUZZ_CHECK(status >= 200 && status < 500, response.body());
  for (const auto& field : response) {
    FUZZ_CHECK(View(field.value()).find_first_of(std::string_view("\r\n\0", 3)) ==
               std::string_view::npos);
  }
  FUZZ_CHECK(docgate::Utf8Length(response.body()).has_value());
  const auto content_type = View(response[http::field::content_type]);
  if (status >= 400) {
    FUZZ_CHECK(content_type == "application/problem+json");
    const json problem = json::parse(response.body(), nullptr, false);
    FUZZ_CHECK(problem.is_object(), response.body());
    FUZZ_CHECK(problem.value("status", json()) == status, response.body());
    for (const char* member : {"type", "title", "detail", "code"}) {
      FUZZ_CHECK(problem.contains(member) && problem[member].is_string(), response.body());
    }
    FUZZ_CHECK(problem["type"] == ProblemType(problem["code"].get<std::string>()));
    if (status == 401) FUZZ_CHECK(!response[http::field::www_authenticate].empty());
    if (status == 405) FUZZ_CHECK(!response[http::field::allow].empty());
    return;
  }
  if (IsConsoleTarget(View(request.target()))) {
    FUZZ_CHECK(status == 200 || status == 304, std::string(request.target()));
    FUZZ_CHECK(!response[http::field::etag].empty());
    FUZZ_CHECK(!response["Content-Security-Policy"].empty());
    FUZZ_CHECK(status == 304 ? response.body().empty() && content_type.empty()
                             : content_type.starts_with("text/") || content_type == "image/svg+xml",
               std::string(content_type));
    return;
  }
  FUZZ_CHECK(content_type == "application/json", std::string(request.target()));
  FUZZ_CHECK(json::accept(response.body()), response.body());
}

// Sends `request` again: a POST under an Idempotency-Key gets the same answer, replayed exactly
// when the first was stored (a success or a decision on the state), decided again otherwise.
void CheckRetry(const FakeBackedApi& fakes, const HttpRequest& request, const HttpResponse& first) {
  if (request.method() != http::verb::post || request.count(docgate::kIdempotencyKeyHeader) != 1) {
    return;
  }
  const HttpResponse again = fakes.api.Handle(request);
  CheckWellFormed(request, again);
  const unsigned status = first.result_int();
  const json problem = status >= 400 ? json::parse(first.body()) : json();
  const std::string code = status >= 400 ? problem["code"].get<std::string>() : "";
  const bool stored = status < 400 || code == "INVALID_STATE" || code == "SELF_REVIEW";
  const bool replayed = again[docgate::kIdempotentReplayedHeader] == "true";
  FUZZ_CHECK(again.result_int() == status, again.body());
  FUZZ_CHECK(replayed == stored, again.body());
  FUZZ_CHECK(again.body() == first.body(), again.body());
}

void Send(FakeBackedApi& fakes, const HttpRequest& request) {
  docgate::RequestTrace trace;
  const std::optional<HttpResponse> screened = fakes.api.Screen(request, trace);
  const HttpResponse response = fakes.api.Handle(request);
  if (screened) {
    FUZZ_CHECK(screened->result() == response.result(), screened->body());
    FUZZ_CHECK(screened->body() == response.body(), screened->body());
  }
  CheckWellFormed(request, response);
  CheckRetry(fakes, request, response);
}

// Alice's documents 1 (submitted: review 1) and 2 (a draft).
void AddFixtures(FakeBackedApi& fakes) {
  const std::string& alice = Tokens().find("@author")->second;
  for (const char* title : {"Guide", "Notes"}) {
    HttpRequest create{http::verb::post, "/api/v1/documents", 11};
    create.set(http::field::authorization, alice);
    create.body() = json{{"title", title}, {"content", "Hello.\n\nWorld."}}.dump();
    create.prepare_payload();
    FUZZ_CHECK(fakes.api.Handle(create).result() == http::status::created);
  }
  HttpRequest submit{http::verb::post, "/api/v1/documents/1/submit", 11};
  submit.set(http::field::authorization, alice);
  FUZZ_CHECK(fakes.api.Handle(submit).result() == http::status::ok);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Nothing the API logs matters here: a 5xx, which it would log, is a crash anyway.
  spdlog::set_level(spdlog::level::off);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<HttpRequest> requests;
  for (const std::string_view text : docgate::fuzz::Split(AsText(data, size), "\n---\n")) {
    if (requests.size() == kMaxRequests) break;
    if (auto request = ParseRequest(text)) requests.push_back(std::move(*request));
  }
  if (requests.empty()) return 0;
  auto fakes = std::make_unique<FakeBackedApi>();
  AddFixtures(*fakes);
  for (const HttpRequest& request : requests) Send(*fakes, request);
  return 0;
}
