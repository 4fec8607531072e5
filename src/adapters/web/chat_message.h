#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace docgate {

// The group robots a webhook may post to (API.md v1.2 "Webhooks", formats other than `generic`).
enum class ChatService { kWeCom, kDingTalk, kFeishu };

enum class NoticeLanguage { kChinese, kEnglish };

// What a chat message says about one event: names, not ids. Every text here comes from users
// (titles, display names) and is neutralized before it enters Markdown (see ChatMessageBody).
struct ChatNotice {
  std::string event_type;      // a routing key: document.approved, review.voted, ...
  std::string document_title;  // the title of the version the event is about
  std::int64_t version = 0;
  std::string actor_name;         // who did it
  std::string subject_name = {};  // review.assigned: the assignee; else empty
  std::string link;  // the console page: <public url>/#/reviews/<id> or #/documents/<id>
};

// The largest Markdown content a WeCom robot accepts, in bytes of UTF-8 (WeCom's 群机器人配置说明:
// "markdown.content ... 最长不超过4096个字节"). docgate cuts longer text at a character boundary
// and says so at its end.
inline constexpr std::size_t kWeComMarkdownLimit = 4096;

// The JSON body to POST to `service`'s robot for `notice`, in `language`:
// - WeCom: {"msgtype": "markdown", "markdown": {"content"}} (group robot; WeCom has no signature:
//   the URL's key is the secret);
// - DingTalk: {"msgtype": "markdown", "markdown": {"title", "text"}}; its signature goes in the
//   URL (DingTalkSign);
// - Feishu: {"msg_type": "post", "content": {"post": {"zh_cn"|"en_us": {"title", "content"}}}},
//   with "timestamp" (a string) and "sign" added when `feishu_signature` is given
//   (FeishuSign).
// Markdown characters and line breaks in titles and names become look-alikes that Markdown does
// not read ("[" becomes "［", ...), so no title can add a link, a mention or a heading.
std::string ChatMessageBody(
    ChatService service, const ChatNotice& notice, NoticeLanguage language,
    std::optional<std::pair<std::int64_t, std::string>> feishu_signature = std::nullopt);

// Whether a 2xx answer's body says the robot took the message: WeCom and DingTalk answer
// {"errcode": 0, ...}, Feishu {"code": 0, ...} (or, from older robots, {"StatusCode": 0}); a
// non-zero code (a bad signature, a rate limit, a key revoked) is an error, returned as
// "errcode 310000: sign not match" for the delivery log. A body that is not such JSON is an error
// too: a robot always answers one.
std::optional<std::string> ChatServiceRefusal(ChatService service, std::string_view body);

}  // namespace docgate
