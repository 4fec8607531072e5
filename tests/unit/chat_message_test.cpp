#include "adapters/web/chat_message.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "core/utf8.h"

namespace docgate {
namespace {

using nlohmann::json;

ChatNotice Approved() {
  return {.event_type = "document.approved",
          .document_title = "数据库备份与恢复规范",
          .version = 3,
          .actor_name = "王芳",
          .link = "https://kb.example.com/#/reviews/40"};
}

TEST(ChatMessageTest, WeComGetsChineseMarkdownNamingTitleActionActorAndLink) {
  const json body =
      json::parse(ChatMessageBody(ChatService::kWeCom, Approved(), NoticeLanguage::kChinese));
  EXPECT_EQ(body["msgtype"], "markdown");
  EXPECT_EQ(body["markdown"]["content"],
            "**docgate · 已批准**\n王芳 批准了《数据库备份与恢复规范》第 3 版\n"
            "[在 docgate 中查看](https://kb.example.com/#/reviews/40)");
}

TEST(ChatMessageTest, DingTalkGetsATitleAndMarkdownText) {
  ChatNotice notice = Approved();
  notice.event_type = "review.assigned";
  notice.subject_name = "李雷";
  const json body =
      json::parse(ChatMessageBody(ChatService::kDingTalk, notice, NoticeLanguage::kChinese));
  EXPECT_EQ(body["msgtype"], "markdown");
  EXPECT_EQ(body["markdown"]["title"], "docgate · 审核指派");
  EXPECT_EQ(body["markdown"]["text"],
            "#### docgate · 审核指派\n\n王芳 请 李雷 审核《数据库备份与恢复规范》第 3 版\n\n"
            "[在 docgate 中查看](https://kb.example.com/#/reviews/40)");
}

TEST(ChatMessageTest, FeishuGetsARichTextPostAndItsSignatureInTheBody) {
  const json body =
      json::parse(ChatMessageBody(ChatService::kFeishu, Approved(), NoticeLanguage::kEnglish,
                                  std::pair<std::int64_t, std::string>(1796000000, "c2lnbg==")));
  EXPECT_EQ(body["msg_type"], "post");
  EXPECT_EQ(body["timestamp"], "1796000000");
  EXPECT_EQ(body["sign"], "c2lnbg==");
  const json& post = body["content"]["post"]["en_us"];
  EXPECT_EQ(post["title"], "docgate · Approved");
  EXPECT_EQ(
      post["content"],
      json::parse(R"([[{"tag": "text", "text": "王芳 approved “数据库备份与恢复规范” (version 3) "},
                            {"tag": "a", "text": "Open in docgate",
                             "href": "https://kb.example.com/#/reviews/40"}]])"));
  // Unsigned, the body has neither field.
  EXPECT_FALSE(
      json::parse(ChatMessageBody(ChatService::kFeishu, Approved(), NoticeLanguage::kChinese))
          .contains("sign"));
}

// A title or a name cannot add a link, a heading or a mention: Markdown's characters become
// look-alikes, line breaks spaces.
TEST(ChatMessageTest, MarkdownInTitlesAndNamesIsNeutralized) {
  ChatNotice notice = Approved();
  notice.document_title = "[点我](https://evil.example/)\n# 标题 <b>@all</b> *粗* `码`";
  notice.actor_name = "王_芳\\";
  const json body =
      json::parse(ChatMessageBody(ChatService::kWeCom, notice, NoticeLanguage::kChinese));
  const std::string content = body["markdown"]["content"];
  EXPECT_EQ(content,
            "**docgate · 已批准**\n王＿芳＼ 批准了《［点我］（https://evil.example/） ＃ 标题 "
            "＜b＞＠all＜/b＞ ＊粗＊ ｀码｀》第 3 版\n"
            "[在 docgate 中查看](https://kb.example.com/#/reviews/40)");
}

TEST(ChatMessageTest, AWeComMessageOverItsLimitIsCutAtACharacterAndSaysSo) {
  ChatNotice notice = Approved();
  notice.actor_name = std::string(5000, 'x') + "审";  // an identity provider's overlong name
  const std::string content = json::parse(ChatMessageBody(
      ChatService::kWeCom, notice, NoticeLanguage::kChinese))["markdown"]["content"];
  EXPECT_LE(content.size(), kWeComMarkdownLimit);
  EXPECT_GT(content.size(), kWeComMarkdownLimit - 4);  // cut, not emptied
  EXPECT_NE(content.find("…（消息过长，已截断）\n[在 docgate 中查看]"), std::string::npos);
  EXPECT_TRUE(Utf8Length(content).has_value());  // still valid UTF-8
}

TEST(ChatMessageTest, EveryEventTypeHasItsSentenceInBothLanguages) {
  for (const std::string type :
       {"document.submitted", "document.approved", "document.rejected", "document.withdrawn",
        "review.assigned", "review.voted", "review.commented"}) {
    ChatNotice notice = Approved();
    notice.event_type = type;
    notice.subject_name = "李雷";
    for (const NoticeLanguage language : {NoticeLanguage::kChinese, NoticeLanguage::kEnglish}) {
      const std::string content = json::parse(
          ChatMessageBody(ChatService::kWeCom, notice, language))["markdown"]["content"];
      EXPECT_EQ(content.find(type), std::string::npos) << content;  // worded, not the key
      EXPECT_NE(content.find("王芳"), std::string::npos) << content;
    }
  }
}

TEST(ChatMessageTest, ARobotsNonZeroCodeIsARefusal) {
  EXPECT_EQ(ChatServiceRefusal(ChatService::kWeCom, R"({"errcode":0,"errmsg":"ok"})"),
            std::nullopt);
  EXPECT_EQ(
      ChatServiceRefusal(ChatService::kDingTalk, R"({"errcode":310000,"errmsg":"sign not match"})"),
      "errcode 310000: sign not match");
  EXPECT_EQ(ChatServiceRefusal(ChatService::kFeishu, R"({"code":0,"msg":"success","data":{}})"),
            std::nullopt);
  EXPECT_EQ(
      ChatServiceRefusal(
          ChatService::kFeishu,
          R"({"code":19021,"msg":"sign match fail or timestamp is not within one hour from current time"})"),
      "code 19021: sign match fail or timestamp is not within one hour from current time");
  EXPECT_EQ(
      ChatServiceRefusal(ChatService::kFeishu, R"({"StatusCode":0,"StatusMessage":"success"})"),
      std::nullopt);
  EXPECT_TRUE(ChatServiceRefusal(ChatService::kWeCom, "").has_value());
  EXPECT_TRUE(ChatServiceRefusal(ChatService::kWeCom, "<html>ok</html>").has_value());
  EXPECT_TRUE(ChatServiceRefusal(ChatService::kWeCom, R"({"errcode":"0"})").has_value());
}

}  // namespace
}  // namespace docgate
