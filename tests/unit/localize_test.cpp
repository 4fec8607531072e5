// Problems in Simplified Chinese (localize.h): the Accept-Language choice, the detail catalog,
// and every kind of problem through a real RestApi, English and Chinese side by side.
#include "adapters/http/localize.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "support/fake_backed_api.h"

namespace docgate {
namespace {

namespace http = boost::beast::http;
using json = nlohmann::json;

bool HasHan(const std::string& text) {
  // U+4E00..U+9FFF in UTF-8: lead byte 0xE4..0xE9.
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0xE4 && byte <= 0xE9) return true;
  }
  return false;
}

TEST(PreferredLanguageTest, ChineseOnlyWhenPreferred) {
  for (const char* zh : {"zh-CN", "zh", "zh-Hans", "ZH-cn", "zh-Hans-CN", "zh-SG",
                         "zh-CN;q=0.8, en;q=0.5", "fr, zh;q=0.1", "en;q=0.2, zh-CN;q=0.9"}) {
    EXPECT_EQ(PreferredLanguage(zh), Language::kChinese) << zh;
  }
  for (const char* en :
       {"", "en", "en-US,en;q=0.9", "en;q=0.9, zh-CN;q=0.8", "zh-TW", "zh-Hant", "zh;q=0", "fr",
        "*", "zh;q=x", "zh;q=2", ",;,", "zh-CN, en", "en, zh-CN"}) {
    const Language expected =
        std::string_view(en) == "zh-CN, en" ? Language::kChinese : Language::kEnglish;
    EXPECT_EQ(PreferredLanguage(en), expected) << en;
  }
}

TEST(DetailCatalogTest, PatternsAreUniqueAndKeepTheirPlaceholders) {
  std::set<std::string_view> seen;
  const auto count = [](std::string_view text) {
    std::size_t n = 0;
    for (auto at = text.find("{}"); at != std::string_view::npos; at = text.find("{}", at + 2)) ++n;
    return n;
  };
  for (const auto& [english, chinese] : DetailCatalog()) {
    EXPECT_TRUE(seen.insert(english).second) << "twice: " << english;
    EXPECT_EQ(count(english), count(chinese)) << english;
    EXPECT_TRUE(HasHan(std::string(chinese))) << english;
  }
  EXPECT_GT(DetailCatalog().size(), 80u);
}

TEST(DetailCatalogTest, CarriesTheVaryingTextOver) {
  EXPECT_EQ(ChineseDetail("document 42 not found"), "文档 42 不存在");
  EXPECT_EQ(ChineseDetail("document 7 is pending_review; only draft or rejected documents can be "
                          "submitted"),
            "文档 7 的状态是 pending_review；只有草稿或已驳回的文档可以提交审核");
  EXPECT_EQ(ChineseDetail("title must be 1..200 characters, got 0"),
            "title 的长度必须为 1 到 200 个字符，实际为 0");
  EXPECT_EQ(ChineseDetail("unknown query parameter '审核'"), "未知的查询参数“审核”");
  // Not in the catalog: kept, after a Chinese lead-in.
  EXPECT_EQ(ChineseDetail("something new"), "（原文为英文）something new");
}

class LocalizedApiTest : public ::testing::Test {
 protected:
  HttpResponse Call(http::verb verb, const std::string& target, const std::string& bearer,
                    const std::string& language, const std::string& body = {},
                    const std::vector<std::pair<std::string, std::string>>& headers = {}) {
    HttpRequest request{verb, target, 11};
    if (!bearer.empty()) request.set(http::field::authorization, bearer);
    if (!language.empty()) request.set(http::field::accept_language, language);
    for (const auto& [name, value] : headers) request.set(name, value);
    if (!body.empty()) {
      request.set(http::field::content_type, "application/json");
      request.body() = body;
    }
    request.prepare_payload();
    return fakes_.api.Handle(request);
  }

  // The same request in English and in Chinese: same status, code and type; Chinese title and
  // detail from the catalog; Content-Language and Vary on both.
  void ExpectLocalized(http::verb verb, const std::string& target, const std::string& bearer,
                       const std::string& body = {},
                       const std::vector<std::pair<std::string, std::string>>& headers = {}) {
    SCOPED_TRACE(target);
    const HttpResponse english = Call(verb, target, bearer, "", body, headers);
    const HttpResponse chinese =
        Call(verb, target, bearer, "zh-CN,zh;q=0.9,en;q=0.5", body, headers);
    ASSERT_EQ(english[http::field::content_type], "application/problem+json");
    EXPECT_EQ(english.result(), chinese.result());
    EXPECT_EQ(english[http::field::content_language], "en");
    EXPECT_EQ(chinese[http::field::content_language], "zh-CN");
    for (const auto* response : {&english, &chinese}) {
      EXPECT_NE((*response)[http::field::vary].find("Accept-Language"), std::string_view::npos);
    }
    const json en = json::parse(english.body());
    const json zh = json::parse(chinese.body());
    for (const char* same : {"type", "status", "code"}) EXPECT_EQ(en.at(same), zh.at(same)) << same;
    const std::string title = zh.at("title");
    const std::string detail = zh.at("detail");
    EXPECT_TRUE(HasHan(title)) << title;
    EXPECT_TRUE(HasHan(detail)) << detail;
    EXPECT_EQ(detail.find("{}"), std::string::npos) << detail;
    EXPECT_EQ(detail.find("原文为英文"), std::string::npos)
        << "not in the catalog: " << en.at("detail");
  }

  std::string Create(const std::string& bearer, const std::string& title) {
    const HttpResponse created = Call(http::verb::post, "/api/v1/documents", bearer, "",
                                      json{{"title", title}, {"content", "第一段。"}}.dump());
    EXPECT_EQ(created.result(), http::status::created) << created.body();
    return json::parse(created.body()).at("id");
  }

  FakeBackedApi fakes_;
  std::string alice_ = fakes_.Bearer("alice", {"author"});
  std::string bob_ = fakes_.Bearer("bob", {"reviewer"});
  std::string frank_ = fakes_.Bearer("frank", {"author", "reviewer"});
};

TEST_F(LocalizedApiTest, EveryKindOfProblem) {
  const std::string id = Create(alice_, "发布流程");
  ExpectLocalized(http::verb::get, "/api/v1/documents", "");                          // 401
  ExpectLocalized(http::verb::get, "/api/v1/documents", "Bearer not.a.token");        // 401
  ExpectLocalized(http::verb::get, "/api/v1/nothing", alice_);                        // 404 route
  ExpectLocalized(http::verb::get, "/api/v1/documents/999", alice_);                  // 404
  ExpectLocalized(http::verb::get, "/api/v1/documents/abc", alice_);                  // 400 id
  ExpectLocalized(http::verb::get, "/api/v1/documents?limit=0", alice_);              // 400
  ExpectLocalized(http::verb::get, "/api/v1/documents?colour=red", alice_);           // 400
  ExpectLocalized(http::verb::post, "/api/v1/documents", alice_, R"({"title":""})");  // 400
  ExpectLocalized(http::verb::post, "/api/v1/documents", alice_, "{not json");        // 400
  ExpectLocalized(http::verb::post, "/api/v1/documents", bob_,
                  R"({"title":"x","content":"y"})");                                   // 403
  ExpectLocalized(http::verb::delete_, "/api/v1/documents", alice_);                   // 405
  ExpectLocalized(http::verb::post, "/api/v1/documents/" + id + "/withdraw", alice_);  // 409
  ExpectLocalized(http::verb::put, "/api/v1/documents/" + id, alice_, R"({"content":"新"})",
                  {{"If-Match", "\"9\""}});                     // 412
  ExpectLocalized(http::verb::get, "/console/missing.js", "");  // 404 file

  // Four eyes: a reviewer deciding the review of their own document.
  const std::string own = Create(frank_, "自审");
  const HttpResponse submitted =
      Call(http::verb::post, "/api/v1/documents/" + own + "/submit", frank_, "", "{}");
  ASSERT_EQ(submitted.result(), http::status::ok) << submitted.body();
  const std::string review = json::parse(submitted.body()).at("review").at("id");
  ExpectLocalized(http::verb::post, "/api/v1/reviews/" + review + "/approve", frank_, "{}");
  ExpectLocalized(http::verb::post, "/api/v1/reviews/" + review + "/reject", bob_,
                  "{}");  // 400 reason
}

TEST_F(LocalizedApiTest, SuccessIsUntouched) {
  const HttpResponse list = Call(http::verb::get, "/api/v1/documents", alice_, "zh-CN");
  EXPECT_EQ(list.result(), http::status::ok);
  EXPECT_EQ(list[http::field::content_language], "");
}

// A refusal stored under an Idempotency-Key replays in the language of the replaying request.
TEST_F(LocalizedApiTest, AStoredRefusalReplaysInTheAskedLanguage) {
  const std::string id = Create(alice_, "草稿");
  const std::vector<std::pair<std::string, std::string>> key = {{"Idempotency-Key", "withdraw-1"}};
  const std::string target = "/api/v1/documents/" + id + "/withdraw";
  const HttpResponse first = Call(http::verb::post, target, alice_, "en", "{}", key);
  ASSERT_EQ(first.result(), http::status::conflict) << first.body();
  const HttpResponse replay = Call(http::verb::post, target, alice_, "zh", "{}", key);
  ASSERT_EQ(replay.result(), http::status::conflict);
  EXPECT_EQ(replay[http::field::content_language], "zh-CN");
  EXPECT_EQ(json::parse(replay.body()).at("detail"),
            ChineseDetail(json::parse(first.body()).at("detail").get<std::string>()));
  const HttpResponse again = Call(http::verb::post, target, alice_, "en", "{}", key);
  EXPECT_EQ(again.body(), first.body());
}

}  // namespace
}  // namespace docgate
