// The console's files as served by RestApi (issue 18): `/` and `/console/<file>`, their types,
// caching and security headers, that every file the page loads is served, and that the
// data-testid values of shared/API.md are in the console's source. What the page does with them is
// for the browser tests (tests/browser).

#include "adapters/http/console.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>

#include "support/fake_backed_api.h"

namespace docgate {
namespace {

namespace http = boost::beast::http;

// shared/API.md, "Console".
const std::set<std::string> kContractTestIds = {
    "token-input", "sign-in",      "sign-out",     "nav-documents", "nav-queue",
    "nav-search",  "new-document", "title-input",  "content-input", "save",
    "submit",      "withdraw",     "document-row", "status-badge",  "queue-item",
    "diff",        "approve",      "reject",       "comment-input", "reason-input",
    "confirm",     "message",      "search-input", "search-result", "language-switch",
    "current-user"};  // v1.2

class ConsoleTest : public ::testing::Test {
 protected:
  HttpResponse Get(const std::string& target, const std::string& if_none_match = "") {
    HttpRequest request{http::verb::get, target, 11};
    if (!if_none_match.empty()) request.set(http::field::if_none_match, if_none_match);
    return fakes_.api.Handle(request);
  }

  std::string Header(const HttpResponse& response, const std::string& name) {
    const auto it = response.find(name);
    return it == response.end() ? "" : std::string(it->value());
  }

  FakeBackedApi fakes_;
};

TEST_F(ConsoleTest, RootServesThePageWithoutAToken) {
  const HttpResponse page = Get("/");
  EXPECT_EQ(page.result(), http::status::ok);
  EXPECT_EQ(Header(page, "Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(page.body().find("<script type=\"module\" src=\"console/app.js\">"), std::string::npos);
}

TEST_F(ConsoleTest, EveryAnswerCarriesTheSecurityHeaders) {
  for (const std::string target : {"/", "/console/app.js", "/console/missing.js"}) {
    const HttpResponse response = Get(target);
    const std::string policy = Header(response, "Content-Security-Policy");
    EXPECT_NE(policy.find("script-src 'self'"), std::string::npos) << target;
    EXPECT_NE(policy.find("frame-ancestors 'none'"), std::string::npos) << target;
    EXPECT_EQ(policy.find("unsafe-inline"), std::string::npos) << target;
    EXPECT_EQ(Header(response, "X-Content-Type-Options"), "nosniff") << target;
    EXPECT_EQ(Header(response, "Referrer-Policy"), "no-referrer") << target;
  }
}

TEST_F(ConsoleTest, AssetsHaveTheirTypes) {
  EXPECT_EQ(Header(Get("/console/app.js"), "Content-Type"), "text/javascript; charset=utf-8");
  EXPECT_EQ(Header(Get("/console/console.css"), "Content-Type"), "text/css; charset=utf-8");
  EXPECT_EQ(Header(Get("/console/icon.svg"), "Content-Type"), "image/svg+xml");
}

TEST_F(ConsoleTest, AnUnchangedAssetIsNotSentAgain) {
  const HttpResponse first = Get("/console/app.js");
  const std::string etag = Header(first, "ETag");
  ASSERT_FALSE(etag.empty());
  EXPECT_EQ(Header(first, "Cache-Control"), "no-cache");

  const HttpResponse again = Get("/console/app.js", etag);
  EXPECT_EQ(again.result(), http::status::not_modified);
  EXPECT_TRUE(again.body().empty());
  EXPECT_EQ(Get("/console/app.js", "\"0000000000000000\"").result(), http::status::ok);
  EXPECT_NE(Header(Get("/console/diff.js"), "ETag"), etag);
}

TEST_F(ConsoleTest, AnUnknownFileIsANotFoundProblem) {
  for (const std::string target : {"/console/nope.js", "/console/..%2Fmain.cpp", "/console/"}) {
    const HttpResponse response = Get(target);
    EXPECT_EQ(response.result(), http::status::not_found) << target;
    EXPECT_EQ(Header(response, "Content-Type"), "application/problem+json") << target;
  }
}

TEST_F(ConsoleTest, EveryFileThePageLoadsIsServed) {
  std::string loaded = Get("/").body();
  std::set<std::string> seen;
  // An import, or a module named in a constant for a later import() (markdown.js).
  const std::regex reference(
      R"((?:src|href)="console/([^"]+)\"|from '\./([^']+)'|_MODULE = '\./([^']+)')");
  for (std::size_t round = 0; round < 4; ++round) {
    std::string next;
    for (std::sregex_iterator it(loaded.begin(), loaded.end(), reference), end; it != end; ++it) {
      const std::string name = (*it)[1].matched   ? (*it)[1].str()
                               : (*it)[2].matched ? (*it)[2].str()
                                                  : (*it)[3].str();
      if (!seen.insert(name).second) continue;
      const HttpResponse asset = Get("/console/" + name);
      EXPECT_EQ(asset.result(), http::status::ok) << name;
      next += asset.body();
    }
    loaded = next;
  }
  EXPECT_TRUE(seen.contains("app.js"));
  EXPECT_TRUE(seen.contains("api.js"));
  EXPECT_TRUE(seen.contains("diff.js"));
  EXPECT_TRUE(seen.contains("i18n.js"));
  EXPECT_TRUE(seen.contains("markdown.js"));
  EXPECT_TRUE(seen.contains("vendor-markdown-it.mjs"));
  EXPECT_TRUE(seen.contains("vendor-dompurify.mjs"));
  EXPECT_EQ(Header(Get("/console/vendor-dompurify.mjs"), "Content-Type"),
            "text/javascript; charset=utf-8");
}

// Byte for byte: the console's sources and the packages' modules (whose minified text holds
// sequences a careless embedding would rewrite, such as @name@).
TEST_F(ConsoleTest, EveryFileIsServedAsItIsOnDisk) {
  std::size_t compared = 0;
  for (const std::filesystem::path& folder :
       {std::filesystem::path(DOCGATE_SOURCE_TREE) / "console",
        std::filesystem::path(DOCGATE_CONSOLE_PACKAGES)}) {
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
      if (!entry.is_regular_file()) continue;
      std::ifstream file(entry.path(), std::ios::binary);
      const std::string on_disk{std::istreambuf_iterator<char>(file), {}};
      const HttpResponse served = Get("/console/" + entry.path().filename().string());
      EXPECT_EQ(served.result(), http::status::ok) << entry.path();
      EXPECT_TRUE(served.body() == on_disk) << entry.path() << " differs from what is served";
      ++compared;
    }
  }
  EXPECT_GE(compared, 20u);
}

TEST_F(ConsoleTest, TheContractsTestIdsAreInTheConsole) {
  std::string source = Get("/").body();
  for (const std::string name :
       {"app.js", "api.js", "diff.js", "i18n.js", "state.js", "dom.js", "session.js", "router.js",
        "diff_view.js", "view_documents.js", "view_queue.js", "view_review.js",
        "review_assignees.js", "review_comments.js", "view_search.js"}) {
    source += Get("/console/" + name).body();
  }
  for (const std::string& id : kContractTestIds) {
    const bool in_html = source.find("data-testid=\"" + id + "\"") != std::string::npos;
    const bool in_script = source.find("testid: '" + id + "'") != std::string::npos ||
                           source.find("'" + id + "'") != std::string::npos;
    EXPECT_TRUE(in_html || in_script) << id;
  }
}

}  // namespace
}  // namespace docgate
