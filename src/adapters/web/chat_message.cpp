#include "adapters/web/chat_message.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "core/utf8.h"

namespace docgate {
namespace {

using nlohmann::json;

struct Wording {
  std::string_view heading;
  std::string sentence;
};

// Markdown reads these in WeCom and DingTalk: each becomes its full-width look-alike, and a line
// break a space, so a title stays one line of text.
std::string Neutralized(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '[':
        out += "［";
        break;
      case ']':
        out += "］";
        break;
      case '(':
        out += "（";
        break;
      case ')':
        out += "）";
        break;
      case '*':
        out += "＊";
        break;
      case '_':
        out += "＿";
        break;
      case '`':
        out += "｀";
        break;
      case '#':
        out += "＃";
        break;
      case '<':
        out += "＜";
        break;
      case '>':
        out += "＞";
        break;
      case '@':
        out += "＠";
        break;
      case '\\':
        out += "＼";
        break;
      case '\r':
      case '\n':
      case '\t':
        out += ' ';
        break;
      default:
        out += c;
    }
  }
  return out;
}

// A link docgate builds from DOCGATE_PUBLIC_URL and ids; the characters that would end a
// Markdown link early are escaped all the same.
std::string LinkTarget(std::string_view link) {
  std::string out;
  for (const char c : link) {
    switch (c) {
      case ' ':
        out += "%20";
        break;
      case '(':
        out += "%28";
        break;
      case ')':
        out += "%29";
        break;
      case '<':
        out += "%3C";
        break;
      case '>':
        out += "%3E";
        break;
      default:
        out += c;
    }
  }
  return out;
}

Wording Chinese(const ChatNotice& n, const std::string& actor, const std::string& title) {
  const std::string what = "《" + title + "》第 " + std::to_string(n.version) + " 版";
  const std::string subject = Neutralized(n.subject_name);
  if (n.event_type == "document.submitted")
    return {"提交审核", actor + " 提交了" + what + "，等待审核"};
  if (n.event_type == "document.approved") return {"已批准", actor + " 批准了" + what};
  if (n.event_type == "document.rejected") return {"已驳回", actor + " 驳回了" + what};
  if (n.event_type == "document.withdrawn") return {"已撤回", actor + " 撤回了" + what + "的审核"};
  if (n.event_type == "review.assigned")
    return {"审核指派", actor + " 请 " + subject + " 审核" + what};
  if (n.event_type == "review.voted")
    return {"审核投票", actor + " 投票批准了" + what + "，还需更多批准"};
  if (n.event_type == "review.commented") return {"审核评论", actor + " 评论了" + what};
  return {"事件", actor + "：" + Neutralized(n.event_type) + " " + what};
}

Wording English(const ChatNotice& n, const std::string& actor, const std::string& title) {
  const std::string what = "“" + title + "” (version " + std::to_string(n.version) + ")";
  const std::string subject = Neutralized(n.subject_name);
  if (n.event_type == "document.submitted")
    return {"Submitted for review", actor + " submitted " + what + " for review"};
  if (n.event_type == "document.approved") return {"Approved", actor + " approved " + what};
  if (n.event_type == "document.rejected") return {"Rejected", actor + " rejected " + what};
  if (n.event_type == "document.withdrawn")
    return {"Withdrawn", actor + " withdrew " + what + " from review"};
  if (n.event_type == "review.assigned")
    return {"Review assigned", actor + " asked " + subject + " to review " + what};
  if (n.event_type == "review.voted")
    return {"Approval vote", actor + " voted to approve " + what + "; more approvals are needed"};
  if (n.event_type == "review.commented") return {"Comment", actor + " commented on " + what};
  return {"Event", actor + ": " + Neutralized(n.event_type) + " " + what};
}

std::string WeComContent(const std::string& heading, const std::string& sentence,
                         const std::string& link_line, NoticeLanguage language) {
  std::string content = heading + "\n" + sentence + "\n" + link_line;
  if (content.size() <= kWeComMarkdownLimit) return content;
  const std::string note =
      language == NoticeLanguage::kChinese ? "…（消息过长，已截断）" : "… (cut: too long)";
  const std::size_t fixed = heading.size() + 2 + note.size() + link_line.size();
  const std::size_t room = fixed < kWeComMarkdownLimit ? kWeComMarkdownLimit - fixed : 0;
  return heading + "\n" + std::string(Utf8Prefix(sentence, room)) + note + "\n" + link_line;
}

}  // namespace

std::string ChatMessageBody(ChatService service, const ChatNotice& notice, NoticeLanguage language,
                            std::optional<std::pair<std::int64_t, std::string>> feishu_signature) {
  const std::string actor = Neutralized(notice.actor_name);
  const std::string title = Neutralized(notice.document_title);
  const Wording wording = language == NoticeLanguage::kChinese ? Chinese(notice, actor, title)
                                                               : English(notice, actor, title);
  const std::string heading = "docgate · " + std::string(wording.heading);
  const std::string link_text =
      language == NoticeLanguage::kChinese ? "在 docgate 中查看" : "Open in docgate";
  const std::string link_line = "[" + link_text + "](" + LinkTarget(notice.link) + ")";
  switch (service) {
    case ChatService::kWeCom:
      return json{{"msgtype", "markdown"},
                  {"markdown",
                   {{"content",
                     WeComContent("**" + heading + "**", wording.sentence, link_line, language)}}}}
          .dump();
    case ChatService::kDingTalk:
      return json{{"msgtype", "markdown"},
                  {"markdown",
                   {{"title", heading},
                    {"text", "#### " + heading + "\n\n" + wording.sentence + "\n\n" + link_line}}}}
          .dump();
    case ChatService::kFeishu: {
      json body{
          {"msg_type", "post"},
          {"content",
           {{"post",
             {{language == NoticeLanguage::kChinese ? "zh_cn" : "en_us",
               {{"title", heading},
                {"content",
                 json::array({json::array(
                     {json{{"tag", "text"}, {"text", wording.sentence + " "}},
                      json{{"tag", "a"}, {"text", link_text}, {"href", notice.link}}})})}}}}}}}};
      if (feishu_signature) {
        body["timestamp"] = std::to_string(feishu_signature->first);
        body["sign"] = feishu_signature->second;
      }
      return body.dump();
    }
  }
  return {};
}

std::optional<std::string> ChatServiceRefusal(ChatService service, std::string_view body) {
  const json answer = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!answer.is_object()) return "the robot's answer is not a JSON object";
  const char* code_field = "errcode";
  const char* message_field = "errmsg";
  if (service == ChatService::kFeishu) {
    code_field = answer.contains("code") ? "code" : "StatusCode";
    message_field = answer.contains("code") ? "msg" : "StatusMessage";
  }
  const auto code = answer.find(code_field);
  if (code == answer.end() || !code->is_number_integer()) {
    return std::string("the robot's answer has no integer `") + code_field + "`";
  }
  if (code->get<std::int64_t>() == 0) return std::nullopt;
  std::string refusal = std::string(code_field) + " " + std::to_string(code->get<std::int64_t>());
  if (const auto message = answer.find(message_field);
      message != answer.end() && message->is_string()) {
    refusal += ": " + std::string(Utf8Prefix(message->get<std::string>(), 200));
  }
  return refusal;
}

}  // namespace docgate
