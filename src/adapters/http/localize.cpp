#include "adapters/http/localize.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <optional>

#include <nlohmann/json.hpp>

#include "adapters/http/dto.h"

namespace docgate {
namespace {

namespace http = boost::beast::http;
using json = nlohmann::json;

// Every detail docgate writes, by where it is written. Order matters only where one pattern's
// text is a case of another's: the first match wins. In the Chinese, "{t}" is a "{}" whose text
// is a name (a field, a status, a kind of resource) read as a Chinese word from kTerms; a literal
// name the reader types (a query parameter, a header, a JSON field) stays as it is, in quotes.
const std::vector<std::pair<std::string_view, std::string_view>> kCatalog = {
    // core (lifecycle)
    {"{} must be {}..{} characters, got {}", "{t}的长度必须为 {} 到 {} 个字符，实际为 {}"},
    {"{} must not contain U+0000", "{t}不能包含空字符（U+0000）"},
    {"review {} is already {}", "审核 {} 已经结束（{t}），不能再更改"},
    {"document {} is {} and review {} is not its current review",
     "文档 {} 的状态是“{t}”，审核 {} 不是它当前的审核"},
    {"review {} was submitted for version {}, the document is at version {}",
     "审核 {} 针对的是第 {} 版，而文档当前是第 {} 版"},
    {"you wrote document {} and cannot decide its review",
     "您是文档 {} 的作者，不能审核自己撰写的版本"},
    {"you edited document {} up to version {} under review and cannot decide its review",
     "您编辑过文档 {}（截至待审核的第 {} 版），不能审核自己编辑过的版本"},
    {"q must contain a word, got only whitespace", "搜索词不能只有空白，至少要包含一个词"},
    {"you approved review {} already", "您已经批准过审核 {}"},
    {"nothing to change: give `add` and/or `remove`", "没有要修改的内容：请给出“add”或“remove”"},
    {"at most {} assignees a request, got {}", "每个请求最多指派 {} 位审核人，实际为 {}"},
    {"assignee '{}': {}", "被指派的审核人“{}”无效：{}"},
    {"'{}' is both added and removed", "“{}”不能同时被指派和移除"},
    {"'{}' wrote version {} of document {} and cannot review it",
     "“{}”撰写或编辑了第 {} 版（文档 {}），不能审核它"},
    {"review {} would have {} assignees; at most {}",
     "审核 {} 将有 {} 位被指派的审核人，最多只能有 {} 位"},
    {"review {} is {}; only a pending review takes comments",
     "审核 {} 已经结束（{t}），只有待审核的审核可以评论"},
    {"line must be 1 or more, got {}", "行号必须大于等于 1，实际为 {}"},
    {"body must contain a character that is not whitespace", "评论内容不能只有空白"},
    {"line {} is beyond version {}, which has {} lines",
     "第 {} 行超出了第 {} 版的范围（共 {} 行）"},
    {"parent_id {} is not a comment of review {}", "要回复的评论 {} 不是审核 {} 的评论"},
    {"this action needs the author role", "此操作需要作者角色"},
    {"this action needs the reviewer role", "此操作需要审核人角色"},
    {"only the author of document {} may do this", "只有文档 {} 的作者可以执行此操作"},
    {"document {} is {}; withdraw its review to edit it (only draft, rejected or approved "
     "documents can be edited)",
     "文档 {} 的状态是“{t}”；要编辑它，请先撤回审核（只有草稿、已驳回或已通过的文档可以编辑）"},
    {"document {} is {}; only draft or rejected documents can be submitted",
     "文档 {} 的状态是“{t}”；只有草稿或已驳回的文档可以提交审核"},
    {"document {} is {}; only a pending review can be withdrawn",
     "文档 {} 的状态是“{t}”；只有待审核的文档可以撤回"},
    // app (document and reader services)
    {"document {} not found", "文档 {} 不存在"},
    {"review {} not found", "审核 {} 不存在"},
    {"no user '{}' has been seen", "没有见过用户“{}”"},
    {"the user id must be 1..{} bytes of UTF-8 without control characters",
     "用户 ID 必须是 1 到 {} 个字节、不含控制字符的 UTF-8 文本"},
    {"document {} has no approved version yet", "文档 {} 还没有通过审核的版本"},
    {"document {} has no version {}; its newest is {}", "文档 {} 没有第 {} 版；最新的是第 {} 版"},
    {"version {} of document {} was a draft replaced before it was submitted and is not kept",
     "第 {} 版（文档 {}）是提交审核前就被替换的草稿，未予保留"},
    {"limit must be 1..{}", "查询参数“limit”必须在 1 到 {} 之间"},
    {"mode semantic and hybrid need embeddings, and this docgate has none configured "
     "(DOCGATE_EMBEDDINGS_URL): use mode=keyword or leave mode out",
     "语义搜索和混合搜索需要向量嵌入，而此 docgate 没有配置（“DOCGATE_EMBEDDINGS_URL”）：请使用"
     "“mode=keyword”，或不指定“mode”"},
    {"another request holds {}; retry in {} s", "另一个请求正持有锁“{}”，请在 {} 秒后重试"},
    {"nothing to change: give title, content or format",
     "没有要修改的内容：请提供标题、正文或格式"},
    {"format must be markdown or text, got '{}'", "“format”必须是“markdown”或“text”，而不是“{}”"},
    {"If-Match names version {}, the document is at version {}",
     "请求头“If-Match”指定的是第 {} 版，而文档当前是第 {} 版"},
    // HTTP: router, body, headers, transport, load shedding
    {"no route for {}", "没有这个路由：{}"},
    {"malformed percent-encoding in the query string", "查询字符串中的百分号编码格式错误"},
    {"unknown query parameter '{}'", "未知的查询参数“{}”"},
    {"query parameter '{}' is not valid UTF-8 or holds U+0000",
     "查询参数“{}”不是有效的 UTF-8 编码，或含有空字符（U+0000）"},
    {"query parameter '{}' given twice", "查询参数“{}”出现了两次"},
    {"malformed percent-encoding in the path", "路径中的百分号编码格式错误"},
    {"the path is not valid UTF-8 or holds U+0000",
     "路径不是有效的 UTF-8 编码，或含有空字符（U+0000）"},
    {"{} is not valid UTF-8", "{t}不是有效的 UTF-8 编码"},
    {"the console has no file '{}'", "控制台没有文件“{}”"},
    {"request body is not valid JSON", "请求体不是有效的 JSON"},
    {"request body nests arrays and objects deeper than {} levels",
     "请求体中数组和对象的嵌套超过了 {} 层"},
    {"request body must be a JSON object", "请求体必须是 JSON 对象"},
    {"request body exceeds {} bytes", "请求体超过 {} 字节"},
    {"request header exceeds {} bytes", "请求头超过 {} 字节"},
    {"a chunk-size line, chunk extension or trailer exceeds {} bytes",
     "分块大小行、分块扩展或尾部字段超过 {} 字节"},
    {"malformed HTTP request: {}", "HTTP 请求格式错误：{}"},
    {"the server is at its connection limit", "服务器已达到连接数上限"},
    {"every worker is busy and the queue is full", "所有工作线程都在忙，等待队列已满"},
    {"the request waited too long for a worker", "请求等待工作线程的时间过长"},
    {"the database is unavailable", "数据库暂时不可用"},
    {"this resource supports {}", "此资源支持的方法：{}"},
    {"the server failed to handle the request; it has been logged",
     "服务器处理请求时出错，已记录日志"},
    // HTTP: parameters and fields
    {"{} id must be a positive 64-bit decimal integer without leading zeros, got '{}'",
     "{t} ID 必须是不带前导零的 64 位正十进制整数，收到的是“{}”"},
    {"version must be a positive 32-bit decimal integer without leading zeros, got '{}'",
     "版本号必须是不带前导零的 32 位正十进制整数，收到的是“{}”"},
    {"`{}` must be a string", "字段“{}”必须是字符串"},
    {"`{}` must be an array of strings", "字段“{}”必须是字符串数组"},
    {"`{}` must be an integer", "字段“{}”必须是整数"},
    {"`parent_id` must be a comment id (a decimal string)",
     "字段“parent_id”必须是评论编号（十进制数字字符串）"},
    {"assignee: {}", "查询参数“assignee”无效：{}"},
    {"assignee must be `me` or a user id, got ''",
     "查询参数“assignee”必须是“me”或用户编号，不能为空"},
    {"`{}` is required", "缺少必填字段“{}”"},
    {"limit must be an integer, got '{}'", "查询参数“limit”必须是整数，收到的是“{}”"},
    {"mode must be keyword, semantic or hybrid, got '{}'",
     "查询参数“mode”必须是“keyword”“semantic”或“hybrid”，收到的是“{}”"},
    {"group must be document or chunk, got '{}'",
     "查询参数“group”必须是“document”或“chunk”，收到的是“{}”"},
    {"after must be a cursor from a previous page, got '{}'",
     "查询参数“after”必须是上一页返回的游标，收到的是“{}”"},
    {"status must be draft, pending_review, approved or rejected, got '{}'",
     "查询参数“status”必须是“draft”“pending_review”“approved”或“rejected”，收到的是“{}”"},
    {"status must be pending, approved, rejected or withdrawn, got '{}'",
     "查询参数“status”必须是“pending”“approved”“rejected”或“withdrawn”，收到的是“{}”"},
    {"author_id must be 1..{} bytes, got {}",
     "查询参数“author_id”的长度必须为 1 到 {} 字节，实际为 {}"},
    {"If-Match must be a version tag like \"3\", got '{}'",
     "请求头“If-Match”必须是形如 \"3\" 的版本标签，收到的是“{}”"},
    {"q is required: the words to search for", "缺少查询参数“q”（要搜索的词）"},
    // HTTP: idempotency
    {"give Idempotency-Key once", "请求头“Idempotency-Key”只能出现一次"},
    {"Idempotency-Key must be 1..255 characters, got {}",
     "请求头“Idempotency-Key”的长度必须为 1 到 255 个字符，实际为 {}"},
    {"Idempotency-Key must be printable ASCII (0x20..0x7E) only",
     "请求头“Idempotency-Key”只能包含可打印的 ASCII 字符（0x20 到 0x7E）"},
    {"Idempotency-Key '{}' was already used with a different request",
     "幂等键“{}”已被另一个不同的请求使用过"},
    {"a request with Idempotency-Key '{}' is still being processed; retry shortly",
     "使用幂等键“{}”的请求仍在处理中，请稍后重试"},
    // HTTP: bearer tokens
    {"missing Authorization: Bearer token", "请求中没有令牌（请求头“Authorization: Bearer”）"},
    {"the Authorization scheme must be Bearer", "请求头“Authorization”的认证方案必须是“Bearer”"},
    {"empty bearer token", "令牌为空"},
    {"bearer token too long", "令牌过长"},
    {"malformed bearer token", "令牌格式错误"},
    {"malformed or badly signed bearer token", "令牌格式错误或签名无效"},
    {"bearer token must be signed with HS256, RS256 or ES256",
     "令牌必须使用 HS256、RS256 或 ES256 算法签名"},
    {"bearer token is signed with {}, which only an OpenID issuer's tokens are, and "
     "DOCGATE_OIDC_ISSUER is unset",
     "令牌使用 {} 签名，只有身份提供方（OpenID）签发的令牌才这样签名，而此 docgate 没有配置"
     "“DOCGATE_OIDC_ISSUER”"},
    {"bearer token must be signed with RS256 or ES256", "令牌必须使用 RS256 或 ES256 算法签名"},
    {"the token's `kid` is not a string", "令牌的密钥 ID（“kid”）不是字符串"},
    {"bearer token is signed with a key {} does not publish",
     "签名令牌的密钥不在 {} 公布的密钥之中"},
    {"bearer token names {} for a {} key", "令牌声明的算法 {} 与密钥的算法 {} 不符"},
    {"bearer token is not from {}", "令牌不是由 {} 签发的"},
    {"bearer token's `aud` does not name {}", "令牌的受众（“aud”）不包含 {}"},
    {"token `exp` or `nbf` is not a number", "令牌的过期时间（“exp”）或生效时间（“nbf”）不是数字"},
    {"bearer token has no `exp`", "令牌没有过期时间（“exp”）"},
    {"bearer token has no claims", "令牌没有声明"},
    {"bearer token claims are not JSON", "令牌的声明不是 JSON"},
    {"token claims are not a JSON object", "令牌的声明不是 JSON 对象"},
    {"token `exp` is not a number", "令牌的过期时间（“exp”）不是数字"},
    {"token has expired", "令牌已过期，请重新登录"},
    {"token `nbf` is not a number", "令牌的生效时间（“nbf”）不是数字"},
    {"token is not valid yet", "令牌尚未生效"},
    {"token `sub` must be a non-empty string", "令牌的用户 ID（“sub”）必须是非空字符串"},
    {"token `sub` must be at most {} bytes, got {}",
     "令牌的用户 ID（“sub”）最多 {} 字节，实际为 {}"},
    {"token `sub` must be UTF-8 without control characters",
     "令牌的用户 ID（“sub”）必须是不含控制字符的 UTF-8 文本"},
    {"token `name` must be a string without control characters",
     "令牌的显示名（“name”）必须是不含控制字符的字符串"},
    {"token `roles` must be an array of strings", "令牌的角色（“roles”）必须是字符串数组"},
    // HTTP: the console's sign-in
    {"the ID token's `nonce` is not the one this sign-in sent",
     "ID 令牌中的“nonce”不是本次登录发出的值"},
    {"the console's session has ended or expired: sign in again",
     "控制台会话已结束或已过期，请重新登录"},
    {"a request signed in by the console's session must carry its X-Docgate-CSRF token "
     "(GET /auth/session answers it)",
     "通过控制台会话登录的请求必须带上会话的防伪令牌（请求头“X-Docgate-CSRF”，由“GET "
     "/auth/session”给出）"},
    {"console sign-in is not configured: it needs DOCGATE_OIDC_ISSUER, DOCGATE_OIDC_CLIENT_ID "
     "and DOCGATE_PUBLIC_URL",
     "控制台登录未配置：需要设置“DOCGATE_OIDC_ISSUER”“DOCGATE_OIDC_CLIENT_ID”和“DOCGATE_PUBLIC_"
     "URL”"},
    {"this browser began no sign-in, or began it more than 10 minutes ago: sign in again from "
     "the console",
     "此浏览器没有发起登录，或者发起已超过 10 分钟，请从控制台重新登录"},
    {"the sign-in's `state` is not the one this browser sent: sign in again",
     "登录回调中的“state”不是此浏览器发出的值，请重新登录"},
    {"the identity provider sent no `code`", "身份提供方没有返回授权码（“code”）"},
    {"the identity provider refused the sign-in: {}", "身份提供方拒绝了登录：{}"},
    {"no sign-in waits to replace this session: it was taken, dropped, or is older than 10 "
     "minutes",
     "没有等待切换的登录：它已被接受或放弃，或者已超过 10 分钟"},
    {"the identity provider {} cannot be reached, or names no authorization endpoint",
     "无法连接身份提供方 {}，或者它没有授权端点"},
    {"the identity provider {} cannot be reached, or names no token endpoint",
     "无法连接身份提供方 {}，或者它没有令牌端点"},
    {"the identity provider's token endpoint cannot be reached", "无法连接身份提供方的令牌端点"},
    {"the identity provider answered the code without an ID token (is `openid` in "
     "DOCGATE_OIDC_SCOPES?)",
     "身份提供方兑换授权码时没有返回 ID 令牌（“DOCGATE_OIDC_SCOPES”中有“openid”吗？）"},
};

// The names a "{t}" stands for, as a Chinese reader says them: the fields a length or encoding
// check names (lifecycle.cpp), the statuses of documents and reviews, the kinds of ids.
constexpr std::pair<std::string_view, std::string_view> kTerms[] = {
    {"title", "标题"},       {"content", "正文"},    {"reason", "驳回原因"},
    {"comment", "审核意见"}, {"q", "搜索词"},        {"document", "文档"},
    {"review", "审核"},      {"draft", "草稿"},      {"pending_review", "待审核"},
    {"approved", "已通过"},  {"rejected", "已驳回"}, {"pending", "待审核"},
    {"withdrawn", "已撤回"}, {"body", "评论内容"},
};

struct Title {
  std::string_view code;
  std::string_view chinese;
};

constexpr Title kTitles[] = {
    {"VALIDATION", "请求无效"},
    {"UNAUTHENTICATED", "需要身份验证"},
    {"FORBIDDEN", "没有权限"},
    {"SELF_REVIEW", "不能审核自己撰写或编辑过的版本"},
    {"NOT_FOUND", "未找到"},
    {"LOCK_BUSY", "操作正在进行"},
    {"INVALID_STATE", "当前状态不允许此操作"},
    {"IDEMPOTENCY_IN_FLIGHT", "相同幂等键的请求正在处理"},
    {"VERSION_MISMATCH", "版本不匹配"},
    {"PAYLOAD_TOO_LARGE", "请求体过大"},
    {"IDEMPOTENCY_KEY_REUSED", "幂等键被重复使用"},
    {"ALREADY_VOTED", "您已经批准过"},
    {"UNSUPPORTED_MEDIA_TYPE", "不支持的文件类型"},
    {"UNPROCESSABLE_DOCUMENT", "无法读取该文件"},
    {"UNAVAILABLE", "服务暂时不可用"},
    {"METHOD_NOT_ALLOWED", "不支持此方法"},
    {"INTERNAL", "服务器内部错误"},
};

constexpr std::string_view kPlaceholder = "{}";

// The text each "{}" of `pattern` stands for in `text`, or nothing when `text` does not have the
// pattern's shape. Each literal piece is found leftmost, the last one must end the text.
std::optional<std::vector<std::string_view>> Match(std::string_view pattern,
                                                   std::string_view text) {
  std::vector<std::string_view> pieces;
  for (std::size_t from = 0;;) {
    const auto at = pattern.find(kPlaceholder, from);
    pieces.push_back(pattern.substr(from, at == std::string_view::npos ? at : at - from));
    if (at == std::string_view::npos) break;
    from = at + kPlaceholder.size();
  }
  if (!text.starts_with(pieces.front())) return std::nullopt;
  if (pieces.size() == 1) {
    if (text.size() != pieces.front().size()) return std::nullopt;
    return std::vector<std::string_view>{};
  }
  if (!text.ends_with(pieces.back()) ||
      text.size() < pieces.front().size() + pieces.back().size()) {
    return std::nullopt;
  }
  std::vector<std::string_view> captured;
  std::size_t at = pieces.front().size();
  const std::size_t end = text.size() - pieces.back().size();
  for (std::size_t i = 1; i + 1 < pieces.size(); ++i) {
    const auto found = text.substr(0, end).find(pieces[i], at);
    if (found == std::string_view::npos) return std::nullopt;
    captured.push_back(text.substr(at, found - at));
    at = found + pieces[i].size();
  }
  if (at > end) return std::nullopt;
  captured.push_back(text.substr(at, end - at));
  return captured;
}

constexpr std::string_view kTermPlaceholder = "{t}";

// Whether `text` has a Han character (U+3400..U+9FFF, three bytes in UTF-8) at byte `at`.
bool HanAt(std::string_view text, std::size_t at) {
  if (at + 3 > text.size()) return false;
  const auto byte = [&](std::size_t i) {
    return static_cast<unsigned>(static_cast<unsigned char>(text[at + i]));
  };
  if ((byte(0) & 0xF0) != 0xE0) return false;
  const unsigned code = ((byte(0) & 0x0F) << 12) | ((byte(1) & 0x3F) << 6) | (byte(2) & 0x3F);
  return code >= 0x3400 && code <= 0x9FFF;
}

// `pattern` with its placeholders filled in order: "{}" with the value, "{t}" with the value's
// Chinese word, or the value itself set off by a space from a Han character beside it.
std::string Fill(std::string_view pattern, const std::vector<std::string_view>& values) {
  std::string out;
  std::size_t from = 0;
  for (const auto value : values) {
    const auto plain = pattern.find(kPlaceholder, from);
    const auto term = pattern.find(kTermPlaceholder, from);
    const bool is_term = term < plain;
    const auto at = is_term ? term : plain;
    out.append(pattern.substr(from, at - from));
    from = at + (is_term ? kTermPlaceholder : kPlaceholder).size();
    if (!is_term) {
      out.append(value);
      continue;
    }
    const auto* known = std::find_if(std::begin(kTerms), std::end(kTerms),
                                     [&](const auto& entry) { return entry.first == value; });
    if (known != std::end(kTerms)) {
      out.append(known->second);
      continue;
    }
    if (out.size() >= 3 && HanAt(out, out.size() - 3)) out.push_back(' ');
    out.append(value);
    if (HanAt(pattern, from)) out.push_back(' ');
  }
  out.append(pattern.substr(from));
  return out;
}

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// zh, zh-CN, zh-SG, zh-Hans, zh-Hans-*: Simplified Chinese. zh-TW, zh-HK, zh-MO and zh-Hant-*
// are Traditional: not spoken here.
std::optional<Language> Spoken(std::string_view tag) {
  const std::string lower = Lower(tag);
  if (lower == "en" || lower.starts_with("en-")) return Language::kEnglish;
  if (lower == "zh" || lower == "zh-cn" || lower == "zh-sg" || lower == "zh-hans" ||
      lower.starts_with("zh-hans-")) {
    return Language::kChinese;
  }
  return std::nullopt;
}

// "q=0.8" -> 800; nothing for a malformed weight.
std::optional<int> Weight(std::string_view parameter) {
  parameter = Trim(parameter);
  if (parameter.size() < 3 || (parameter[0] != 'q' && parameter[0] != 'Q') || parameter[1] != '=') {
    return std::nullopt;
  }
  const std::string_view value = parameter.substr(2);
  if (value.empty() || value.size() > 5 || (value[0] != '0' && value[0] != '1')) {
    return std::nullopt;
  }
  int thousandths = (value[0] - '0') * 1000;
  if (value.size() > 1) {
    if (value[1] != '.') return std::nullopt;
    int scale = 100;
    for (const char c : value.substr(2)) {
      if (c < '0' || c > '9') return std::nullopt;
      thousandths += (c - '0') * scale;
      scale /= 10;
    }
  }
  if (thousandths > 1000) return std::nullopt;
  return thousandths;
}

}  // namespace

Language PreferredLanguage(std::string_view accept_language) {
  Language best = Language::kEnglish;
  int best_weight = 0;
  while (!accept_language.empty()) {
    const auto comma = accept_language.find(',');
    std::string_view range = accept_language.substr(0, comma);
    accept_language = comma == std::string_view::npos ? "" : accept_language.substr(comma + 1);
    int weight = 1000;
    if (const auto semicolon = range.find(';'); semicolon != std::string_view::npos) {
      const auto parsed = Weight(range.substr(semicolon + 1));
      if (!parsed) continue;  // a malformed element is ignored, not the whole header
      weight = *parsed;
      range = range.substr(0, semicolon);
    }
    const auto spoken = Spoken(Trim(range));
    if (spoken && weight > best_weight) {  // ties: the earlier one
      best = *spoken;
      best_weight = weight;
    }
  }
  return best;
}

const std::vector<std::pair<std::string_view, std::string_view>>& DetailCatalog() {
  return kCatalog;
}

std::string ChineseDetail(std::string_view detail) {
  for (const auto& [english, chinese] : kCatalog) {
    if (auto values = Match(english, detail)) return Fill(chinese, *values);
  }
  return "（原文为英文）" + std::string(detail);
}

std::string ChineseTitle(std::string_view code) {
  for (const auto& title : kTitles) {
    if (title.code == code) return std::string(title.chinese);
  }
  return "请求失败";
}

void LocalizeProblem(HttpResponse& response, Language language) {
  if (response[http::field::content_type] != "application/problem+json") return;
  const auto vary = response[http::field::vary];
  if (vary.empty()) {
    response.set(http::field::vary, "Accept-Language");
  } else if (vary.find("Accept-Language") == std::string_view::npos) {
    response.set(http::field::vary, std::string(vary) + ", Accept-Language");
  }
  if (language == Language::kEnglish) {
    response.set(http::field::content_language, "en");
    return;
  }
  json body = json::parse(response.body(), nullptr, /*allow_exceptions=*/false);
  if (!body.is_object()) return;
  if (const auto code = body.find("code"); code != body.end() && code->is_string()) {
    body["title"] = ChineseTitle(code->get_ref<const std::string&>());
  }
  if (const auto detail = body.find("detail"); detail != body.end() && detail->is_string()) {
    *detail = ChineseDetail(detail->get_ref<const std::string&>());
  }
  response.body() = Dump(body);
  response.set(http::field::content_language, "zh-CN");
  response.prepare_payload();
}

}  // namespace docgate
