#pragma once

// The API in Simplified Chinese (shared/API.md, "Languages"): with Accept-Language preferring
// zh-CN, zh or zh-Hans, a problem+json's `title` and `detail` are Chinese and Content-Language
// says so; `type`, `status` and `code` never change. Everything else stays English.
//
// Problems are built (and idempotent refusals stored) in English; LocalizeProblem translates on
// the way out, so a stored refusal replays in the language of the request that replays it.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "adapters/http/http_message.h"

namespace docgate {

enum class Language { kEnglish, kChinese };

// RFC 9110 Accept-Language with q-values: the most preferred language docgate speaks; English
// when the header is absent, malformed or names nothing else docgate speaks.
Language PreferredLanguage(std::string_view accept_language);

// Sets Content-Language and Vary: Accept-Language on a problem+json response and, for Chinese,
// rewrites its title and detail. Any other response is left as it is.
void LocalizeProblem(HttpResponse& response, Language language);

// A detail in Chinese: the catalog's pattern that matches it, its placeholders' text carried
// over; an English detail no pattern matches is kept after a Chinese lead-in.
std::string ChineseDetail(std::string_view detail);
std::string ChineseTitle(std::string_view code);

// The catalog: (English pattern, Chinese pattern), "{}" for each piece of varying text, in the
// same order in both; in the Chinese, "{t}" instead of "{}" is a name (a field, a status) that
// ChineseDetail says in Chinese. For tests.
const std::vector<std::pair<std::string_view, std::string_view>>& DetailCatalog();

}  // namespace docgate
