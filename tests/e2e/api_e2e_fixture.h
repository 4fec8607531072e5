// The fixtures of the HTTP API end-to-end tests (api_e2e_test.cpp, api_errors_e2e_test.cpp),
// shared so that both files add tests to the same parameterized suites; they are instantiated once,
// in api_e2e_test.cpp.
#pragma once

#include <chrono>

#include "e2e/e2e_server.h"

namespace docgate::api_e2e {

using namespace std::chrono_literals;
using e2e::Headers;
using e2e::HttpClient;
using e2e::HttpReply;
using nlohmann::json;
namespace http = boost::beast::http;

// Every backend.
class ApiTest : public e2e::ServerTest {};
// Backends with the gate on (LOCK_BUSY exists only there).
class GatedApiTest : public e2e::ServerTest {};
// What only the embedded default has: the generated secret file, SQLite's single writer.
class SqliteApiTest : public e2e::ServerTest {};

}  // namespace docgate::api_e2e
