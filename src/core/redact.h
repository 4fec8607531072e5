#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace docgate {

// What stands for a secret in logs and messages.
inline constexpr std::string_view kRedacted = "***";

// `url` as it may be logged: the password of its userinfo
// (scheme://user:PASSWORD@host...) and the value of any query parameter whose
// name ends in `password` (`password=`, `sentinel_password=`, any case)
// replaced by kRedacted; everything else as written. Works on any
// scheme (postgresql, redis, amqp, mongodb, ...) and on malformed URLs alike.
std::string RedactUrl(std::string_view url);

// `text` (a library's error message, say) with every occurrence of the
// passwords `url` carries, as written and percent-decoded, replaced by
// kRedacted. When the authority holds several '@', each span from the
// userinfo's ':' to one of them counts as a password, as parsers differ on
// which '@' ends the userinfo.
std::string RedactSecretsOf(std::string_view text, std::string_view url);

// `text` with every occurrence of each of `secrets` replaced by kRedacted, the longest first so
// that a secret containing another is replaced whole. Empty secrets are ignored.
std::string RedactAll(std::string_view text, std::vector<std::string> secrets);

// The passwords `url` may carry, as RedactSecretsOf looks for them: as written and
// percent-decoded, each span a parser may take for the userinfo's password, and the value of
// every query parameter whose name ends in `password`. Empty for a URL without any.
std::vector<std::string> PasswordsOf(std::string_view url);

// The pieces of secrets that may not reach a log line: every run of at least kMinSecretPiece
// bytes of text that is also a run of one of the secrets is replaced by kRedacted, so that a
// secret cut short, quoted in part or split across a cut is hidden as well as a whole one.
// Secrets shorter than kMinSecretPiece are not looked for (they would match ordinary words).
class SecretPieces {
 public:
  static constexpr std::size_t kMinSecretPiece = 8;

  explicit SecretPieces(std::vector<std::string> secrets);
  // windows_ views the strings of secrets_: a copy would view the original's.
  SecretPieces(const SecretPieces&) = delete;
  SecretPieces& operator=(const SecretPieces&) = delete;
  SecretPieces(SecretPieces&&) = default;
  SecretPieces& operator=(SecretPieces&&) = default;

  std::string Redact(std::string_view text) const;
  bool empty() const { return secrets_.empty(); }

 private:
  // The length of the longest run of a secret that starts at text[at], 0 when shorter than
  // kMinSecretPiece.
  std::size_t PieceAt(std::string_view text, std::size_t at) const;

  std::vector<std::string> secrets_;
  std::unordered_set<std::string_view> windows_;  // every kMinSecretPiece-byte run of a secret
};

}  // namespace docgate
