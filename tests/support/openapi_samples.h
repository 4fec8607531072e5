#pragma once

// Real responses as samples for tests/support/openapi_check.py, and the checker run over them:
// the end-to-end test records what a running docgate answers, console_sign_in_test.cpp what the
// sign-in routes answer with a provider at their port. Header-only.

#include <sys/wait.h>

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "support/build_paths.h"

namespace docgate::testing {

// One response as the checker reads it: method, target, status, media type, lower-case headers,
// and the body parsed when it is JSON.
inline nlohmann::json OpenApiSample(
    boost::beast::http::verb verb, const std::string& target,
    const boost::beast::http::response<boost::beast::http::string_body>& message) {
  namespace http = boost::beast::http;
  using nlohmann::json;
  const std::string type(message[http::field::content_type]);
  json headers = json::object();
  for (const auto& field : message) {
    std::string name(field.name_string());
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    headers[name] = std::string(field.value());
  }
  const bool is_json = type == "application/json" || type == "application/problem+json";
  return json{
      {"method", std::string(http::to_string(verb))},
      {"target", target},
      {"status", message.result_int()},
      {"content_type", type},
      {"headers", std::move(headers)},
      {"body", is_json ? json::parse(message.body(), nullptr, false) : json(message.body())}};
}

// Runs `openapi_check.py responses` over `samples` against `document` (files written in `dir`),
// with `options` ("--only /auth/", "--except /auth/" or ""); (exit code, output).
inline std::pair<int, std::string> CheckOpenApiSamples(const std::string& document,
                                                       const nlohmann::json& samples,
                                                       const std::filesystem::path& dir,
                                                       const std::string& options = "") {
  std::filesystem::create_directories(dir);
  const auto doc_file = dir / "openapi.json";
  const auto samples_file = dir / "samples.json";
  std::ofstream(doc_file) << document;
  std::ofstream(samples_file) << samples.dump(1);
  const std::string command =
      std::string(DOCGATE_PYTHON3) + " " + BesideExecutable(DOCGATE_OPENAPI_CHECK) +
      " responses '" + doc_file.string() + "' '" + samples_file.string() + "' " + options + " 2>&1";
  std::string output;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return {-1, "popen failed"};
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

}  // namespace docgate::testing
