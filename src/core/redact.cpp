#include "core/redact.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "core/percent_encoding.h"

namespace docgate {
namespace {

struct Span {
  std::size_t begin = 0;
  std::size_t end = 0;
  bool userinfo = false;  // the userinfo's password, not a query value
};

// Whether a query parameter's name ends in "password", in any case: password=,
// sentinel_password=, ...
bool EndsWithPassword(std::string_view name) {
  constexpr std::string_view kSuffix = "password";
  if (name.size() < kSuffix.size()) return false;
  const std::string_view tail = name.substr(name.size() - kSuffix.size());
  return std::equal(tail.begin(), tail.end(), kSuffix.begin(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == b;
  });
}

// Where the secrets of `url` are: the userinfo's password and the value of every
// query parameter whose name ends in "password".
std::vector<Span> SecretSpans(std::string_view url) {
  std::vector<Span> spans;
  const std::size_t scheme_end = url.find("://");
  const std::size_t authority = scheme_end == std::string_view::npos ? 0 : scheme_end + 3;
  // The userinfo ends at the last '@' before the path: a password may itself
  // hold '@' or '/' when written unescaped, which libpq and others tolerate.
  const std::size_t query = url.find('?', authority);
  const std::string_view head = url.substr(0, query);
  const std::size_t at = head.rfind('@');
  if (at != std::string_view::npos && at > authority) {
    const std::size_t colon = head.find(':', authority);
    if (colon != std::string_view::npos && colon < at) spans.push_back({colon + 1, at, true});
  }
  if (query != std::string_view::npos) {
    std::size_t from = query + 1;
    while (from <= url.size()) {
      std::size_t end = url.find('&', from);
      if (end == std::string_view::npos) end = url.size();
      const std::size_t equals = url.find('=', from);
      if (equals < end && EndsWithPassword(url.substr(from, equals - from))) {
        spans.push_back({equals + 1, end, false});
      }
      from = end + 1;
    }
  }
  return spans;
}

}  // namespace

std::string RedactUrl(std::string_view url) {
  std::string out;
  std::size_t copied = 0;
  for (const Span &span : SecretSpans(url)) {
    out.append(url.substr(copied, span.begin - copied));
    out.append(kRedacted);
    copied = span.end;
  }
  out.append(url.substr(copied));
  return out;
}

std::vector<std::string> PasswordsOf(std::string_view url) {
  // Every span a parser may take for the password: RedactUrl's, which ends at
  // the last '@', and those ending at an earlier '@', where libpq and the RFC
  // end the userinfo when a later '@' belongs to the path.
  std::vector<std::string> secrets;
  for (const Span &span : SecretSpans(url)) {
    const std::string_view secret = url.substr(span.begin, span.end - span.begin);
    secrets.emplace_back(secret);
    secrets.push_back(PercentDecoded(secret));
    for (std::size_t at = span.userinfo ? secret.find('@') : secret.npos;
         at != std::string_view::npos; at = secret.find('@', at + 1)) {
      secrets.emplace_back(secret.substr(0, at));
      secrets.push_back(PercentDecoded(secret.substr(0, at)));
    }
  }
  return secrets;
}

std::string RedactAll(std::string_view text, std::vector<std::string> secrets) {
  std::stable_sort(secrets.begin(), secrets.end(),
                   [](const std::string &a, const std::string &b) { return a.size() > b.size(); });
  std::string out(text);
  for (const std::string &secret : secrets) {
    if (secret.empty()) continue;
    for (std::size_t at = out.find(secret); at != std::string::npos;
         at = out.find(secret, at + kRedacted.size())) {
      out.replace(at, secret.size(), kRedacted);
    }
  }
  return out;
}

std::string RedactSecretsOf(std::string_view text, std::string_view url) {
  return RedactAll(text, PasswordsOf(url));
}

SecretPieces::SecretPieces(std::vector<std::string> secrets) {
  for (std::string &secret : secrets) {
    if (secret.size() >= kMinSecretPiece) secrets_.push_back(std::move(secret));
  }
  for (const std::string &secret : secrets_) {
    const std::string_view view(secret);
    for (std::size_t at = 0; at + kMinSecretPiece <= view.size(); ++at) {
      windows_.insert(view.substr(at, kMinSecretPiece));
    }
  }
}

std::size_t SecretPieces::PieceAt(std::string_view text, std::size_t at) const {
  if (at + kMinSecretPiece > text.size() ||
      !windows_.contains(text.substr(at, kMinSecretPiece))) {
    return 0;
  }
  std::size_t longest = 0;
  for (const std::string &secret : secrets_) {
    std::size_t length = kMinSecretPiece;
    if (secret.find(text.substr(at, length)) == std::string::npos) continue;
    while (at + length < text.size() &&
           secret.find(text.substr(at, length + 1)) != std::string::npos) {
      ++length;
    }
    longest = std::max(longest, length);
  }
  return longest;
}

std::string SecretPieces::Redact(std::string_view text) const {
  std::string out;
  std::size_t copied = 0;
  for (std::size_t at = 0; !windows_.empty() && at < text.size();) {
    if (const std::size_t piece = PieceAt(text, at); piece > 0) {
      out.append(text.substr(copied, at - copied));
      out.append(kRedacted);
      at += piece;
      copied = at;
    } else {
      ++at;
    }
  }
  out.append(text.substr(copied));
  return out;
}

}  // namespace docgate
