// The OpenAPI document (src/adapters/http/openapi.json) against the code and shared/API.md: the
// routes of a real RestApi both ways, API.md's route table and error codes, every $ref, the
// idempotency and request-id headers, and the problem examples against the error mapper's output.
// (The examples against their schemas: CTest unit.OpenApiExamplesMatchTheirSchemas.)

#include "adapters/http/openapi.h"

#include <gtest/gtest.h>

#include <cctype>
#include <chrono>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "adapters/http/error_mapper.h"
#include "support/fake_backed_api.h"
#include "support/build_paths.h"

namespace docgate {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
namespace http = boost::beast::http;

// API.md's route table, as "METHOD /path".
const std::set<std::string> kApiMdRoutes = {
    "POST /api/v1/documents",
    "POST /api/v1/documents/import",  // v1.2
    "GET /api/v1/documents/{id}",
    "GET /api/v1/documents",
    "PUT /api/v1/documents/{id}",
    "GET /api/v1/documents/{id}/content",
    "GET /api/v1/documents/{id}/preview",
    "POST /api/v1/documents/{id}/submit",
    "POST /api/v1/documents/{id}/withdraw",
    "GET /api/v1/documents/{id}/reviews",
    "GET /api/v1/documents/{id}/versions",            // v1.1
    "GET /api/v1/documents/{id}/versions/{version}",  // v1.1
    "GET /api/v1/reviews",
    "GET /api/v1/reviews/{id}",
    "POST /api/v1/reviews/{id}/approve",
    "POST /api/v1/reviews/{id}/reject",
    "POST /api/v1/reviews/{id}/assignees",  // v1.2
    "POST /api/v1/reviews/{id}/comments",   // v1.2
    "GET /api/v1/reviews/{id}/comments",    // v1.2
    "GET /api/v1/search",
    "GET /api/v1/me",          // v1.2
    "GET /api/v1/users/{id}",  // v1.2
    "GET /healthz",
    "GET /readyz",
    "GET /metrics",
    "GET /openapi.json",
    "GET /",                // v1.1, the console
    "GET /console/{file}",  // v1.1
    "GET /auth/login",      // v1.2, console sign-in
    "GET /auth/callback",   // v1.2
    "POST /auth/logout",    // v1.2
    // docgate's own, where API.md is silent (docs/api.md section 2.2, ADR 0013): the console
    // asks for its session and CSRF token, and takes or drops a sign-in waiting to replace it.
    "GET /auth/session",
    "POST /auth/switch",
    "DELETE /auth/switch",
};

// The console's sign-in routes: a browser's, by its cookies, not an API client's.
bool IsSignIn(const std::string& path) { return path.starts_with("/auth/"); }

// API.md's error table: code -> status.
const std::map<std::string, unsigned> kApiMdCodes = {
    {"VALIDATION", 400},
    {"UNAUTHENTICATED", 401},
    {"FORBIDDEN", 403},
    {"SELF_REVIEW", 403},
    {"NOT_FOUND", 404},
    {"LOCK_BUSY", 409},
    {"INVALID_STATE", 409},
    {"IDEMPOTENCY_IN_FLIGHT", 409},
    {"VERSION_MISMATCH", 412},
    {"PAYLOAD_TOO_LARGE", 413},
    {"IDEMPOTENCY_KEY_REUSED", 422},
    {"ALREADY_VOTED", 409},
    {"UNSUPPORTED_MEDIA_TYPE", 415},  // v1.2, imports
    {"UNPROCESSABLE_DOCUMENT", 422},  // v1.2, imports
    {"UNAVAILABLE", 503},
};

// API.md's routes that take the lock (and so may answer LOCK_BUSY with Retry-After).
const std::set<std::string> kLockedRoutes = {
    "POST /api/v1/documents/{id}/submit",
    "POST /api/v1/documents/{id}/withdraw",
    "POST /api/v1/reviews/{id}/approve",
    "POST /api/v1/reviews/{id}/reject",
};

const char* const kMethods[] = {"get",   "put",  "post",    "delete",
                                "patch", "head", "options", "trace"};

const json& Doc() {
  static const json doc = json::parse(OpenApiDocument());
  return doc;
}

std::string Upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

struct Operation {
  std::string key;     // "POST /api/v1/documents/{id}/submit"
  std::string method;  // "post"
  std::string path;
  const json* op;
};

std::vector<Operation> Operations() {
  std::vector<Operation> out;
  for (const auto& [path, item] : Doc().at("paths").items()) {
    for (const char* method : kMethods) {
      if (item.contains(method))
        out.push_back({Upper(method) + " " + path, method, path, &item.at(method)});
    }
  }
  return out;
}

// Follows "#/..." references to the object they name; throws when one does not resolve.
const json& Resolve(const json& node) {
  const json* current = &node;
  for (int hops = 0; current->is_object() && current->contains("$ref"); ++hops) {
    if (hops > 10) throw std::runtime_error("$ref cycle");
    const std::string target = current->at("$ref");
    if (target.rfind("#/", 0) != 0) throw std::runtime_error("non-local $ref " + target);
    current = &Doc().at(json::json_pointer(target.substr(1)));
  }
  return *current;
}

std::vector<json> Parameters(const Operation& operation) {
  std::vector<json> out;
  for (const auto& parameter : operation.op->value("parameters", json::array())) {
    out.push_back(Resolve(parameter));
  }
  return out;
}

const json* FindParameter(const Operation& operation, const std::string& in,
                          const std::string& name) {
  if (!operation.op->contains("parameters")) return nullptr;
  // By reference: value() would copy, and the pointer returned would dangle.
  for (const auto& parameter : operation.op->at("parameters")) {
    const json& p = Resolve(parameter);
    if (p.at("in") == in && p.at("name") == name) return &p;
  }
  return nullptr;
}

bool IsPublic(const Operation& operation) {
  return operation.op->contains("security") && operation.op->at("security").empty();
}
bool IsServed(const Operation& operation) {
  return !operation.op->value("x-docgate-not-served", false);
}

// The codes a problem response may carry: its schema's `code` const/enum and its examples' codes.
std::set<std::string> ProblemCodes(const json& response) {
  std::set<std::string> codes;
  const json& media = response.at("content").at("application/problem+json");
  for (const auto& part : media.at("schema").value("allOf", json::array())) {
    if (!part.contains("properties") || !part.at("properties").contains("code")) continue;
    const json& code = part.at("properties").at("code");
    if (code.contains("const")) codes.insert(code.at("const").get<std::string>());
    for (const auto& value : code.value("enum", json::array()))
      codes.insert(value.get<std::string>());
  }
  return codes;
}

std::optional<ErrorCode> CodeNamed(const std::string& name) {
  for (int i = 0; i <= static_cast<int>(ErrorCode::kUnavailable); ++i) {
    if (ErrorCodeName(static_cast<ErrorCode>(i)) == name) return static_cast<ErrorCode>(i);
  }
  return std::nullopt;
}

HealthChecks Healthy() {
  HealthChecks health;
  health.database = [] { return true; };
  health.metrics = [] { return std::string("# no metrics in this test\n"); };  // serves /metrics
  return health;
}

// A real RestApi over the fakes.
class OpenApiTest : public ::testing::Test {
 protected:
  HttpResponse Call(HttpVerb verb, const std::string& target, bool with_token) {
    HttpRequest request{verb, target, 11};
    if (with_token) request.set(http::field::authorization, bearer_);
    request.prepare_payload();
    return fakes_.api.Handle(request);
  }
  std::set<std::string> ServedRoutes() const {
    std::set<std::string> out;
    for (const auto& [verb, pattern] : fakes_.api.Routes()) {
      const auto name = http::to_string(verb);
      EXPECT_TRUE(out.insert(std::string(name.data(), name.size()) + " " + pattern).second)
          << "registered twice: " << pattern;
    }
    return out;
  }

  FakeBackedApi fakes_{Healthy()};
  std::string bearer_ = fakes_.Bearer("root", {"author", "reviewer", "admin"});
};

TEST_F(OpenApiTest, IsServedWithoutATokenExactlyAsWrittenInTheRepository) {
  const HttpResponse response = Call(HttpVerb::get, "/openapi.json", /*with_token=*/false);
  EXPECT_EQ(response.result(), HttpStatus::ok);
  EXPECT_EQ(response[http::field::content_type], "application/json");
  EXPECT_EQ(response.body(), OpenApiDocument());
  const std::string path = testing::BesideExecutable(DOCGATE_OPENAPI_SOURCE);
  std::ifstream source(path, std::ios::binary);
  ASSERT_TRUE(source) << path;
  std::ostringstream text;
  text << source.rdbuf();
  EXPECT_EQ(text.str(), OpenApiDocument()) << "the binary embeds a stale or altered copy";
}

TEST_F(OpenApiTest, IsOpenApi31ForThisVersionWithBearerJwt) {
  EXPECT_EQ(Doc().at("openapi"), "3.1.0");
  EXPECT_EQ(Doc().at("info").at("title"), "docgate");
  EXPECT_EQ(Doc().at("info").at("version"), DOCGATE_PROJECT_VERSION);
  EXPECT_FALSE(Doc().at("servers").empty());
  const json& bearer = Doc().at("components").at("securitySchemes").at("bearerAuth");
  EXPECT_EQ(bearer.at("type"), "http");
  EXPECT_EQ(bearer.at("scheme"), "bearer");
  EXPECT_EQ(bearer.at("bearerFormat"), "JWT");
  EXPECT_EQ(Doc().at("security"), json::parse(R"([{"bearerAuth": []}])"));
}

TEST_F(OpenApiTest, DocumentsExactlyTheRoutesOfApiMd) {
  std::set<std::string> documented;
  for (const auto& operation : Operations()) documented.insert(operation.key);
  for (const auto& route : kApiMdRoutes)
    EXPECT_TRUE(documented.count(route)) << "missing: " << route;
  for (const auto& route : documented)
    EXPECT_TRUE(kApiMdRoutes.count(route)) << "not in API.md: " << route;
}

// Both ways: every route the router serves is documented (and not marked unserved), and every
// documented operation is served unless it is marked x-docgate-not-served.
TEST_F(OpenApiTest, DocumentsEveryRouteTheRouterServesAndNothingElse) {
  const std::set<std::string> served = ServedRoutes();
  std::set<std::string> documented;
  for (const auto& operation : Operations()) {
    documented.insert(operation.key);
    if (IsServed(operation)) {
      EXPECT_TRUE(served.count(operation.key)) << "documented but not served: " << operation.key;
    } else {
      EXPECT_FALSE(served.count(operation.key))
          << operation.key << " is served now: drop its x-docgate-not-served";
    }
  }
  for (const auto& route : served) {
    EXPECT_TRUE(documented.count(route)) << "served but not documented: " << route;
  }
}

// RestApi::Screen, which the server asks before reading a body, answers exactly as Handle would
// for every route without a token (401 for each of /api/, nothing for the open ones), for no
// route (404) and another method (405), in the request's language; with a token it leaves the
// request to Handle.
TEST_F(OpenApiTest, TheScreenAnswersFromTheHeaderExactlyAsHandleWould) {
  const auto request = [](HttpVerb verb, std::string target) {
    for (const char* name : {"{id}", "{version}", "{file}"}) {
      if (const auto at = target.find(name); at != std::string::npos) {
        target.replace(at, std::string_view(name).size(), name[1] == 'f' ? "app.js" : "1");
      }
    }
    HttpRequest built{verb, target, 11};
    built.set(http::field::accept_language, "zh-CN");
    return built;
  };
  const auto expect_as_handle = [&](const HttpRequest& built, unsigned status) {
    RequestTrace trace;
    const auto screened = fakes_.api.Screen(built, trace);
    ASSERT_TRUE(screened.has_value()) << built.target();
    const HttpResponse handled = fakes_.api.Handle(built);
    EXPECT_EQ(screened->result_int(), status) << built.target();
    EXPECT_EQ(handled.result_int(), status) << built.target();
    EXPECT_EQ(screened->body(), handled.body()) << built.target();
    EXPECT_EQ((*screened)[http::field::content_language], "zh-CN") << built.target();
    EXPECT_EQ((*screened)[http::field::www_authenticate], handled[http::field::www_authenticate]);
  };
  for (const auto& [verb, pattern] : fakes_.api.Routes()) {
    HttpRequest built = request(verb, pattern);
    if (pattern.starts_with("/api/")) {
      expect_as_handle(built, 401);
      built.set(http::field::authorization, bearer_);
    }
    RequestTrace trace;
    EXPECT_FALSE(fakes_.api.Screen(built, trace).has_value()) << pattern;
    EXPECT_EQ(trace.route, pattern);
  }
  expect_as_handle(request(HttpVerb::get, "/api/v1/nowhere"), 404);
  expect_as_handle(request(HttpVerb::patch, "/api/v1/documents"), 405);
  expect_as_handle(request(HttpVerb::get, "/api/v1/%FF"), 400);
}

TEST_F(OpenApiTest, EveryRefResolves) {
  std::vector<std::pair<std::string, std::string>> refs;  // (where, target)
  std::function<void(const json&, const std::string&)> walk = [&](const json& node,
                                                                  const std::string& where) {
    if (node.is_object()) {
      for (const auto& [key, value] : node.items()) {
        if (key == "$ref" && value.is_string()) refs.emplace_back(where, value.get<std::string>());
        walk(value, where + "/" + key);
      }
    } else if (node.is_array()) {
      for (std::size_t i = 0; i < node.size(); ++i) walk(node[i], where + "/" + std::to_string(i));
    }
  };
  walk(Doc(), "");
  EXPECT_GT(refs.size(), 100u);
  for (const auto& [where, target] : refs) {
    ASSERT_EQ(target.rfind("#/", 0), 0u) << where << ": " << target;
    EXPECT_TRUE(Doc().contains(json::json_pointer(target.substr(1)))) << where << ": " << target;
  }
}

TEST_F(OpenApiTest, PathParametersAreDeclaredAndRequired) {
  for (const auto& operation : Operations()) {
    std::set<std::string> in_path;
    for (std::size_t open = operation.path.find('{'); open != std::string::npos;
         open = operation.path.find('{', open + 1)) {
      in_path.insert(operation.path.substr(open + 1, operation.path.find('}', open) - open - 1));
    }
    std::set<std::string> declared;
    for (const auto& parameter : Parameters(operation)) {
      if (parameter.at("in") != "path") continue;
      declared.insert(parameter.at("name").get<std::string>());
      EXPECT_EQ(parameter.value("required", false), true) << operation.key;
      EXPECT_EQ(parameter.at("schema").at("type"), "string") << operation.key;
    }
    EXPECT_EQ(in_path, declared) << operation.key;
  }
}

TEST_F(OpenApiTest, EveryPostTakesAnIdempotencyKeyAndMayReplay) {
  int posts = 0;
  for (const auto& operation : Operations()) {
    const json* key = FindParameter(operation, "header", "Idempotency-Key");
    if (operation.method != "post" || IsSignIn(operation.path)) {
      EXPECT_EQ(key, nullptr) << operation.key << ": only POST routes are idempotent";
      continue;
    }
    ++posts;
    ASSERT_NE(key, nullptr) << operation.key;
    EXPECT_EQ(key->value("required", true), false) << operation.key;
    EXPECT_EQ(key->at("schema").at("pattern"), "^[\\x20-\\x7E]{1,255}$") << operation.key;
    const json& responses = operation.op->at("responses");
    for (const auto& [status, response] : responses.items()) {
      if (status[0] != '2') continue;
      EXPECT_TRUE(Resolve(response).at("headers").contains("Idempotent-Replayed"))
          << operation.key << " " << status;
    }
    ASSERT_TRUE(responses.contains("409")) << operation.key;
    EXPECT_TRUE(ProblemCodes(Resolve(responses.at("409"))).count("IDEMPOTENCY_IN_FLIGHT"))
        << operation.key;
    ASSERT_TRUE(responses.contains("422")) << operation.key;
    // An import's 422 is also a file it cannot read.
    const std::set<std::string> key_reused =
        operation.path == "/api/v1/documents/import"
            ? std::set<std::string>{"IDEMPOTENCY_KEY_REUSED", "UNPROCESSABLE_DOCUMENT"}
            : std::set<std::string>{"IDEMPOTENCY_KEY_REUSED"};
    EXPECT_EQ(ProblemCodes(Resolve(responses.at("422"))), key_reused) << operation.key;
  }
  EXPECT_EQ(posts, 8);
}

TEST_F(OpenApiTest, EveryOperationTakesAndEveryResponseEchoesXRequestId) {
  for (const auto& operation : Operations()) {
    const json* id = FindParameter(operation, "header", "X-Request-Id");
    ASSERT_NE(id, nullptr) << operation.key;
    EXPECT_EQ(id->value("required", true), false) << operation.key;
    for (const auto& [status, response] : operation.op->at("responses").items()) {
      EXPECT_TRUE(Resolve(response).value("headers", json::object()).contains("X-Request-Id"))
          << operation.key << " " << status;
    }
  }
}

// Every error code anywhere in the document is one of API.md's, under API.md's status for it.
TEST_F(OpenApiTest, ErrorCodesAreApiMdsUnderTheirStatus) {
  std::set<std::string> all;
  for (const auto& value : Doc().at(json::json_pointer("/components/schemas/ErrorCode/enum"))) {
    all.insert(value.get<std::string>());
  }
  std::set<std::string> api_md;
  for (const auto& [code, status] : kApiMdCodes) api_md.insert(code);
  EXPECT_EQ(all, api_md);

  std::set<std::string> used;
  for (const auto& operation : Operations()) {
    for (const auto& [status, ref] : operation.op->at("responses").items()) {
      const json& response = Resolve(ref);
      if (!response.value("content", json::object()).contains("application/problem+json")) {
        // API.md: /readyz answers 503 with its readiness body, not a problem.
        // The console's files answer a revalidation with 304 Not Modified, and the sign-in
        // sends the browser on with 302 and 303.
        EXPECT_TRUE(status[0] == '2' || status == "304" ||
                    (operation.key == "GET /readyz" && status == "503") ||
                    (IsSignIn(operation.path) && (status == "302" || status == "303")))
            << operation.key << " " << status << ": an error that is not a problem";
        continue;
      }
      const auto codes = ProblemCodes(response);
      EXPECT_FALSE(codes.empty()) << operation.key << " " << status;
      for (const auto& code : codes) {
        used.insert(code);
        ASSERT_TRUE(kApiMdCodes.count(code))
            << operation.key << ": " << code << " is not in API.md";
        EXPECT_EQ(std::to_string(kApiMdCodes.at(code)), status) << operation.key << ": " << code;
      }
      for (const auto& [name, example] :
           response.at("content").at("application/problem+json").at("examples").items()) {
        const std::string code = Resolve(example).at("value").at("code");
        EXPECT_TRUE(codes.count(code)) << operation.key << " " << status << " example " << name;
      }
    }
  }
  EXPECT_EQ(used, api_md) << "every code of API.md is documented somewhere";
}

// What every route of /api/v1 may answer whatever it does, and the headers that go with errors.
TEST_F(OpenApiTest, ErrorResponsesCarryTheirHeaders) {
  for (const auto& operation : Operations()) {
    const json& responses = operation.op->at("responses");
    if (IsPublic(operation)) continue;
    for (const char* status : {"400", "401", "503"}) {
      EXPECT_TRUE(responses.contains(status)) << operation.key << " lacks " << status;
    }
    EXPECT_TRUE(Resolve(Resolve(responses.at("401")).at("headers").at("WWW-Authenticate"))
                    .value("required", false))
        << operation.key;
    EXPECT_TRUE(Resolve(Resolve(responses.at("503")).at("headers").at("Retry-After"))
                    .value("required", false))
        << operation.key;
    const bool locked = responses.contains("409") &&
                        ProblemCodes(Resolve(responses.at("409"))).count("LOCK_BUSY") > 0;
    EXPECT_EQ(locked, kLockedRoutes.count(operation.key) > 0) << operation.key;
    if (locked) {
      EXPECT_TRUE(Resolve(responses.at("409")).at("headers").contains("Retry-After"));
    }
  }
}

TEST_F(OpenApiTest, DocumentResponsesCarryETagAndCreationLocation) {
  for (const auto& operation : Operations()) {
    const json& responses = operation.op->at("responses");
    for (const auto& [status, ref] : responses.items()) {
      if (status[0] != '2') continue;
      const json& response = Resolve(ref);
      if (!response.contains("content")) continue;  // 204
      const json& schema = response.at("content").begin()->at("schema");
      const bool is_document = schema == json{{"$ref", "#/components/schemas/Document"}} ||
                               schema == json{{"$ref", "#/components/schemas/ImportedDocument"}};
      const bool is_console = operation.op->at("tags") == json{"console"};  // cached files
      EXPECT_EQ(response.at("headers").contains("ETag"), is_document || is_console)
          << operation.key;
      // A created document has its URL; a comment has none of its own (its review's list has it).
      EXPECT_EQ(response.at("headers").contains("Location"), status == "201" && is_document)
          << operation.key;
    }
    EXPECT_EQ(FindParameter(operation, "header", "If-Match") != nullptr,
              operation.key == "PUT /api/v1/documents/{id}")
        << operation.key;
  }
}

// The problem examples are what docgate sends: the error mapper's body for that code and detail.
TEST_F(OpenApiTest, ProblemExamplesAreTheErrorMappersOutput) {
  std::set<std::string> codes;
  for (const auto& operation : Operations()) {
    for (const auto& [status, ref] : operation.op->at("responses").items()) {
      const json& content = Resolve(ref).value("content", json::object());
      if (!content.contains("application/problem+json")) continue;
      for (const auto& [name, example] :
           content.at("application/problem+json").at("examples").items()) {
        const json& value = Resolve(example).at("value");
        const auto code = CodeNamed(value.at("code").get<std::string>());
        ASSERT_TRUE(code.has_value()) << operation.key << " " << status << " " << name;
        const HttpResponse sent =
            ProblemResponse(MakeError(*code, value.at("detail").get<std::string>()));
        EXPECT_EQ(value, json::parse(sent.body())) << operation.key << " " << status << " " << name;
        codes.insert(value.at("code").get<std::string>());
      }
    }
  }
  EXPECT_EQ(codes.size(), kApiMdCodes.size()) << "an example for every code";
}

// Bearer on /api/v1, nothing on the probes: as documented, and as the router answers.
TEST_F(OpenApiTest, TokensAreRequiredWhereDocumentedAndOnlyThere) {
  for (const auto& operation : Operations()) {
    const bool api = operation.path.rfind("/api/v1/", 0) == 0;
    EXPECT_EQ(IsPublic(operation), !api) << operation.key;
    if (!IsServed(operation)) continue;
    std::string target = operation.path;
    for (auto open = target.find('{'); open != std::string::npos; open = target.find('{')) {
      const auto close = target.find('}', open);
      const json* parameter =
          FindParameter(operation, "path", target.substr(open + 1, close - open - 1));
      std::string value = "1";  // an id; a parameter with examples takes its first
      if (parameter != nullptr && parameter->contains("examples")) {
        value = parameter->at("examples").begin()->at("value").get<std::string>();
      }
      target.replace(open, close - open + 1, value);
    }
    const auto verb = http::string_to_verb(Upper(operation.method));
    const HttpResponse response = Call(verb, target, /*with_token=*/false);
    if (api) {
      EXPECT_EQ(response.result(), HttpStatus::unauthorized) << operation.key;
    } else if (IsSignIn(operation.path)) {
      // Off in this fixture: answered without a token all the same (console_sign_in_test.cpp).
      EXPECT_NE(response.result(), HttpStatus::unauthorized) << operation.key;
    } else {
      EXPECT_EQ(response.result(), HttpStatus::ok) << operation.key;
    }
  }
}

// The query parameters documented are the ones the handler accepts: each one's example is taken
// (with the required ones beside it), an undocumented one is refused.
TEST_F(OpenApiTest, DocumentedQueryParametersAreExactlyTheAcceptedOnes) {
  // The document a path's {id} names, and its review.
  const Actor alice{"alice", "", true, false, false};
  const auto doc = fakes_.service.Create(alice, "t", "c");
  ASSERT_TRUE(doc.ok());
  const auto submitted = fakes_.service.Submit(alice, doc->id);
  ASSERT_TRUE(submitted.ok());
  int checked = 0;
  for (auto operation : Operations()) {
    // The callback takes what the provider adds (`iss`, `session_state`): console_sign_in_test.cpp.
    if (!IsServed(operation) || operation.method != "get" || IsSignIn(operation.path)) continue;
    if (const auto at = operation.path.find("{id}"); at != std::string::npos) {
      const bool review = operation.path.starts_with("/api/v1/reviews/");
      operation.path.replace(at, 4, std::to_string(review ? submitted->review.id : doc->id));
    }
    std::string all;
    std::string required;
    const auto pair_of = [](const json& parameter) {
      const json& example = parameter.at("example");
      const std::string value = example.is_string() ? example.get<std::string>() : example.dump();
      return parameter.at("name").get<std::string>() + "=" + value;
    };
    for (const auto& parameter : Parameters(operation)) {
      if (parameter.at("in") == "query" && parameter.value("required", false)) {
        required += (required.empty() ? "" : "&") + pair_of(parameter);
      }
    }
    for (const auto& parameter : Parameters(operation)) {
      if (parameter.at("in") != "query") continue;
      const std::string pair = pair_of(parameter);
      const bool is_required = parameter.value("required", false);
      const std::string query = is_required || required.empty() ? pair : required + "&" + pair;
      EXPECT_EQ(Call(HttpVerb::get, operation.path + "?" + query, true).result(), HttpStatus::ok)
          << operation.key << "?" << query;
      all += (all.empty() ? "" : "&") + pair;
      ++checked;
    }
    if (all.empty()) continue;
    const HttpResponse together = Call(HttpVerb::get, operation.path + "?" + all, true);
    EXPECT_EQ(together.result(), HttpStatus::ok) << operation.key << "?" << all << together.body();
    EXPECT_EQ(Call(HttpVerb::get, operation.path + "?undocumented=1", true).result(),
              HttpStatus::bad_request)
        << operation.key;
  }
  // documents: status, author_id, limit, after; reviews: status, assignee, limit, after; search:
  // q, limit, mode, group; a document's reviews and versions, a review's comments: limit, after
  EXPECT_EQ(checked, 18);
}

}  // namespace
}  // namespace docgate
