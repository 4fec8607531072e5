#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "app/ports/digest.h"

namespace docgate {

// The signatures a webhook delivery carries (API.md v1.2 "Webhooks"), one function per scheme, so
// that each can be checked against the document it follows. A secret is used as its bytes.

// `generic`: the X-Docgate-Signature header, "sha256=" + lowercase hex of
// HMAC-SHA256(key = secret, message = unix_seconds + "." + body), where unix_seconds is the
// X-Docgate-Timestamp header's decimal value; the receiver recomputes it over the raw body.
std::string GenericWebhookSignature(const Digest& digest, std::string_view secret,
                                    std::int64_t unix_seconds, std::string_view body);

// `dingtalk`: the `sign` query parameter of a DingTalk group robot with 加签 (DingTalk Open
// Platform, 自定义机器人安全设置, "加签"): Base64 of HMAC-SHA256(key = secret,
// message = unix_millis + "\n" + secret), sent percent-encoded beside `timestamp` = unix_millis.
// DingTalk refuses a timestamp more than an hour from its clock.
std::string DingTalkSign(const Digest& digest, std::string_view secret, std::int64_t unix_millis);

// `feishu`: the `sign` field of a Feishu/Lark custom bot's message body with 签名校验 (Feishu Open
// Platform, 自定义机器人使用指南, "签名校验"): Base64 of HMAC-SHA256(key = unix_seconds + "\n" +
// secret, message = empty), sent beside `timestamp` = unix_seconds (a string). The key and the
// message are the other way round from DingTalk's, as that document's examples have them.
std::string FeishuSign(const Digest& digest, std::string_view secret, std::int64_t unix_seconds);

}  // namespace docgate
