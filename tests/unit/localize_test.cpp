// Problems in Simplified Chinese (localize.h): the Accept-Language choice, the detail catalog,
// and every kind of problem through a real RestApi, English and Chinese side by side.
#include "adapters/http/localize.h"

#include <gtest/gtest.h>

#include <cctype>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "support/fake_backed_api.h"

namespace docgate {
namespace {

namespace http = boost::beast::http;
using json = nlohmann::json;

// What a native reader flags in a Chinese message (issue 36, item 10), one line each; empty when
// nothing. In a catalog pattern "{}" is left to its value; "{t}" stands for a Chinese word.
std::vector<std::string> ChineseCopyProblems(std::string_view text) {
  std::u32string cps;
  std::string ascii;  // the text with "{t}" as a Han character and quoted parts blanked
  for (std::size_t i = 0; i < text.size();) {
    if (text.substr(i).starts_with("{t}")) {
      cps.push_back(U'名');
      i += 3;
      continue;
    }
    const auto lead = static_cast<unsigned char>(text[i]);
    const int length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
    char32_t cp = length == 1 ? lead : lead & (0xFF >> (length + 1));
    for (int k = 1; k < length && i + k < text.size(); ++k) {
      cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    }
    cps.push_back(cp);
    i += length;
  }
  const auto is_han = [](char32_t c) { return c >= 0x3400 && c <= 0x9FFF; };
  const auto is_cjk = [&](char32_t c) {
    return is_han(c) || (c >= 0x3000 && c <= 0x303F) || (c >= 0xFF00 && c <= 0xFFEF) || c == U'“' ||
           c == U'”';
  };
  const auto is_alnum = [](char32_t c) { return c < 0x80 && std::isalnum(static_cast<int>(c)); };
  const std::u32string full_width = U"。，、；：？！";
  const std::u32string half_width = U",.?!:;()";
  std::vector<std::string> problems;
  bool quoted = false;
  std::string word;
  const auto end_word = [&] {
    int letters = 0;
    for (const char c : word) letters += std::isalpha(static_cast<unsigned char>(c)) ? 1 : 0;
    static const std::set<std::string> kKept = {"docgate", "JWT",   "URL",   "HTTP",
                                                "JSON",    "UTF-8", "ASCII", "ID",
                                                "HS256",   "RS256", "ES256", "OpenID"};
    if (letters >= 2 && !word.starts_with("0x") && !kKept.contains(word)) {
      problems.push_back("English word: " + word);
    }
    word.clear();
  };
  for (std::size_t i = 0; i < cps.size(); ++i) {
    const char32_t c = cps[i];
    const char32_t next = i + 1 < cps.size() ? cps[i + 1] : 0;
    if (full_width.find(c) != std::u32string::npos && next != 0 &&
        full_width.find(next) != std::u32string::npos) {
      problems.push_back("doubled punctuation");
    }
    if (half_width.find(c) != std::u32string::npos &&
        ((i > 0 && is_cjk(cps[i - 1])) || is_cjk(next))) {
      problems.push_back("half-width punctuation beside Chinese");
    }
    if ((is_han(c) && (is_alnum(next) || next == U'{')) ||
        ((is_alnum(c) || c == U'}') && is_han(next))) {
      problems.push_back("no space between Chinese and Latin, digits or a placeholder");
    }
    if (c == U'}' && (next == U'。' || next == U'？' || next == U'！')) {
      problems.push_back("a sentence's end after a placeholder");
    }
    if (c == U'`') problems.push_back("a backtick");
    if (c == U'—' && next != U'—' && (i == 0 || cps[i - 1] != U'—')) {
      problems.push_back("an English dash");
    }
    if (c == U'“') quoted = true;
    if (c == U'”') quoted = false;
    const bool in_word =
        c < 0x80 && (std::isalnum(static_cast<int>(c)) || c == '_' || c == '+' || c == '-');
    if (in_word && !quoted) {
      word.push_back(static_cast<char>(c));
    } else if (!word.empty()) {
      end_word();
    }
  }
  if (!word.empty()) end_word();
  return problems;
}

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
  const auto count = [](std::string_view text, std::string_view placeholder) {
    std::size_t n = 0;
    for (auto at = text.find(placeholder); at != std::string_view::npos;
         at = text.find(placeholder, at + placeholder.size())) {
      ++n;
    }
    return n;
  };
  for (const auto& [english, chinese] : DetailCatalog()) {
    EXPECT_TRUE(seen.insert(english).second) << "twice: " << english;
    EXPECT_EQ(count(english, "{}"), count(chinese, "{}") + count(chinese, "{t}")) << english;
    EXPECT_TRUE(HasHan(std::string(chinese))) << english;
  }
  EXPECT_GT(DetailCatalog().size(), 80u);
}

TEST(DetailCatalogTest, CarriesTheVaryingTextOver) {
  EXPECT_EQ(ChineseDetail("document 42 not found"), "文档 42 不存在");
  EXPECT_EQ(ChineseDetail("unknown query parameter '审核'"), "未知的查询参数“审核”");
  // Not in the catalog: kept, after a Chinese lead-in.
  EXPECT_EQ(ChineseDetail("something new"), "（原文为英文）something new");
}

TEST(DetailCatalogTest, NamesFieldsAndStatusesInChinese) {
  EXPECT_EQ(ChineseDetail("title must be 1..200 characters, got 0"),
            "标题的长度必须为 1 到 200 个字符，实际为 0");
  EXPECT_EQ(ChineseDetail("reason must be 1..2000 characters, got 2001"),
            "驳回原因的长度必须为 1 到 2000 个字符，实际为 2001");
  EXPECT_EQ(ChineseDetail("content is not valid UTF-8"), "正文不是有效的 UTF-8 编码");
  EXPECT_EQ(ChineseDetail("document 7 is pending_review; only draft or rejected documents can be "
                          "submitted"),
            "文档 7 的状态是“待审核”；只有草稿或已驳回的文档可以提交审核");
  EXPECT_EQ(ChineseDetail("review 3 is already withdrawn"),
            "审核 3 已经结束（已撤回），不能再更改");
  EXPECT_EQ(ChineseDetail("review id must be a positive 64-bit decimal integer without leading "
                          "zeros, got 'x'"),
            "审核 ID 必须是不带前导零的 64 位正十进制整数，收到的是“x”");
  // A name the table lacks is kept, a space apart from the Chinese.
  EXPECT_EQ(ChineseDetail("colour must be 1..9 characters, got 10"),
            "colour 的长度必须为 1 到 9 个字符，实际为 10");
}

TEST(ChineseCopyTest, TheCheckFindsWhatItIsFor) {
  EXPECT_EQ(ChineseCopyProblems("已通过。。").size(), 1u);
  EXPECT_EQ(ChineseCopyProblems("确定吗?").size(), 1u);
  EXPECT_EQ(ChineseCopyProblems("title 的长度").size(), 1u);
  EXPECT_EQ(ChineseCopyProblems("令牌的 `exp` 不是数字").size(), 3u);  // two backticks, a word
  EXPECT_EQ(ChineseCopyProblems("文档{}不存在").size(), 2u);
  EXPECT_EQ(ChineseCopyProblems("出错了：{}。").size(), 1u);
  EXPECT_TRUE(ChineseCopyProblems("请求头“If-Match”必须是 JSON（0x20 到 0x7E）").empty());
  EXPECT_TRUE(ChineseCopyProblems("{t}的长度必须为 {} 到 {} 个字符").empty());
}

// Every Chinese detail pattern and title reads as written Chinese: full-width punctuation, no
// doubled punctuation, Latin and digits a space apart, no English but names kept as they are
// (docgate, JSON, HTTP, ...) and what the reader types, quoted.
TEST(ChineseCopyTest, TheCatalogReadsAsChinese) {
  for (const auto& [english, chinese] : DetailCatalog()) {
    const auto problems = ChineseCopyProblems(chinese);
    EXPECT_TRUE(problems.empty()) << chinese << ": " << ::testing::PrintToString(problems);
  }
  for (const char* code : {"VALIDATION", "UNAUTHENTICATED", "FORBIDDEN", "SELF_REVIEW", "NOT_FOUND",
                           "LOCK_BUSY", "INVALID_STATE", "IDEMPOTENCY_IN_FLIGHT",
                           "VERSION_MISMATCH", "PAYLOAD_TOO_LARGE", "IDEMPOTENCY_KEY_REUSED",
                           "UNAVAILABLE", "METHOD_NOT_ALLOWED", "INTERNAL", "SOMETHING_NEW"}) {
    const std::string title = ChineseTitle(code);
    EXPECT_TRUE(HasHan(title)) << code;
    EXPECT_TRUE(ChineseCopyProblems(title).empty()) << code << ": " << title;
  }
  // Filled in with the names the code puts there, the details still read as Chinese.
  for (const char* detail :
       {"title must be 1..200 characters, got 0", "reason must be 1..2000 characters, got 0",
        "comment must be 0..2000 characters, got 2001", "q must be 1..256 characters, got 300",
        "title must not contain U+0000", "content is not valid UTF-8",
        "review 3 is already approved", "review 3 is already rejected",
        "document 7 is draft and review 3 is not its current review",
        "document 7 is approved; only a pending review can be withdrawn",
        "document id must be a positive 64-bit decimal integer without leading zeros, got '0'"}) {
    const std::string chinese = ChineseDetail(detail);
    const auto problems = ChineseCopyProblems(chinese);
    EXPECT_TRUE(problems.empty()) << chinese << ": " << ::testing::PrintToString(problems);
  }
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
