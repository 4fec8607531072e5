#include "app/webhook_signature.h"

#include <span>

#include "core/base64url.h"
#include "core/hex.h"

namespace docgate {

std::string GenericWebhookSignature(const Digest& digest, std::string_view secret,
                                    std::int64_t unix_seconds, std::string_view body) {
  std::string message = std::to_string(unix_seconds);
  message += '.';
  message += body;
  const std::string mac = digest.HmacSha256(secret, message);
  return "sha256=" +
         LowerHex(std::span(reinterpret_cast<const unsigned char*>(mac.data()), mac.size()));
}

std::string DingTalkSign(const Digest& digest, std::string_view secret, std::int64_t unix_millis) {
  std::string message = std::to_string(unix_millis);
  message += '\n';
  message += secret;
  return EncodeBase64(digest.HmacSha256(secret, message));
}

std::string FeishuSign(const Digest& digest, std::string_view secret, std::int64_t unix_seconds) {
  std::string key = std::to_string(unix_seconds);
  key += '\n';
  key += secret;
  return EncodeBase64(digest.HmacSha256(key, ""));
}

}  // namespace docgate
