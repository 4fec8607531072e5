// Invariant: RedactUrl (core/redact.h) hides every secret of a URL: what it returns is the same
// whatever the letters of a well-formed userinfo password and of every `password=` query value,
// and redacting twice changes nothing. RedactSecretsOf leaves no occurrence of such a password,
// as written or percent-decoded, in a text.
// Input: the URL, then optionally '\n' and a text in which "$P" stands for the URL's password as
// written and "$D" for it percent-decoded. SecretPieces of the URL's passwords leaves no run of 8
// bytes of one in that text.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/redact.h"
#include "fuzz_support.h"

namespace {

using docgate::fuzz::AsText;

// `url` with the letters of every `password=` value of its query changed (OtherLetters): the
// query starts at the first '?' after the scheme, its pairs are split at '&'.
std::string WithOtherQueryPasswords(std::string_view url) {
  const auto scheme_end = url.find("://");
  const auto query = url.find('?', scheme_end == std::string_view::npos ? 0 : scheme_end + 3);
  if (query == std::string_view::npos) return std::string(url);
  std::string out(url.substr(0, query + 1));
  std::string_view rest = url.substr(query + 1);
  for (bool first = true;; first = false) {
    const auto amp = rest.find('&');
    std::string_view pair = rest.substr(0, amp);
    if (!first) out += '&';
    constexpr std::string_view kKey = "password=";
    if (pair.starts_with(kKey)) {
      out += std::string(kKey) + docgate::fuzz::OtherLetters(pair.substr(kKey.size()));
    } else {
      out += pair;
    }
    if (amp == std::string_view::npos) break;
    rest.remove_prefix(amp + 1);
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto halves = docgate::fuzz::SplitOnce(AsText(data, size), "\n");
  const std::string_view url = halves.before;
  const std::string redacted = docgate::RedactUrl(url);
  FUZZ_CHECK(docgate::RedactUrl(redacted) == redacted, redacted);
  FUZZ_CHECK(docgate::RedactUrl(WithOtherQueryPasswords(url)) == redacted, redacted);

  const auto password = docgate::fuzz::WellFormedPassword(url);
  if (!password) return 0;
  FUZZ_CHECK(docgate::RedactUrl(docgate::fuzz::WithOtherPassword(url, *password)) == redacted,
             redacted);
  if (halves.after) {
    docgate::fuzz::CheckRedacts(*halves.after, url, *password, [&](const std::string& text) {
      return docgate::RedactSecretsOf(text, url);
    });
    // The log's last filter, SecretPieces of the URL's passwords, leaves no run of 8 bytes of
    // any of them (one holding a '*' aside: "***" could complete it) in the same text.
    const std::vector<std::string> passwords = docgate::PasswordsOf(url);
    const docgate::SecretPieces pieces(passwords);
    docgate::fuzz::CheckRedacts(*halves.after, url, *password, [&](const std::string& text) {
      const std::string logged = pieces.Redact(text);
      for (const std::string& secret : passwords) {
        if (secret.find('*') != std::string::npos) continue;
        for (std::size_t at = 0; at + docgate::SecretPieces::kMinSecretPiece <= secret.size();
             ++at) {
          FUZZ_CHECK(logged.find(secret.substr(at, docgate::SecretPieces::kMinSecretPiece)) ==
                         std::string::npos,
                     logged);
        }
      }
      return docgate::RedactSecretsOf(logged, url);  // CheckRedacts asks for whole secrets too
    });
  }
  return 0;
}
