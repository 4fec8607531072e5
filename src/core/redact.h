#pragma once

#include <string>
#include <string_view>

namespace docgate {

// What stands for a secret in logs and messages.
inline constexpr std::string_view kRedacted = "***";

// `url` as it may be logged: the password of its userinfo
// (scheme://user:PASSWORD@host...) and the value of any `password=` query
// parameter replaced by kRedacted; everything else as written. Works on any
// scheme (postgresql, redis, amqp, mongodb, ...) and on malformed URLs alike.
std::string RedactUrl(std::string_view url);

// `text` (a library's error message, say) with every occurrence of the
// passwords `url` carries, as written and percent-decoded, replaced by
// kRedacted. When the authority holds several '@', each span from the
// userinfo's ':' to one of them counts as a password, as parsers differ on
// which '@' ends the userinfo.
std::string RedactSecretsOf(std::string_view text, std::string_view url);

}  // namespace docgate
