#include "adapters/mongo/mongo_uri.h"

#include <mongoc/mongoc.h>

#include <memory>
#include <vector>

#include "adapters/mongo/mongo_driver.h"
#include "core/percent_encoding.h"
#include "core/redact.h"

namespace docgate {
namespace {

// What may be the password in `uri`, read as text so that a URI libmongoc refuses is covered too:
// for every '@' after the scheme, what lies between the first ':' and it (more than the password
// when an option holds an '@'; redacting too much is harmless), as written and decoded.
std::vector<std::string> PasswordCandidates(std::string_view uri) {
  const auto scheme_end = uri.find("://");
  const std::string_view rest =
      scheme_end == std::string_view::npos ? uri : uri.substr(scheme_end + 3);
  std::vector<std::string> candidates;
  const auto colon = rest.find(':');
  if (colon == std::string_view::npos) return candidates;
  for (auto at = rest.find('@', colon); at != std::string_view::npos; at = rest.find('@', at + 1)) {
    const std::string_view password = rest.substr(colon + 1, at - colon - 1);
    if (password.empty()) continue;
    candidates.emplace_back(password);
    candidates.push_back(PercentDecoded(password));
  }
  return candidates;
}

}  // namespace

std::string WithoutPassword(std::string text, std::string_view uri) {
  return RedactAll(text, PasswordCandidates(uri));
}

std::optional<std::string> ValidateMongoUri(const std::string& uri) {
  if (uri.empty()) return "the MongoDB URI is empty";
  const MongoDriver driver;
  bson_error_t error{};
  const std::unique_ptr<mongoc_uri_t, decltype(&mongoc_uri_destroy)> parsed(
      mongoc_uri_new_with_error(uri.c_str(), &error), &mongoc_uri_destroy);
  if (!parsed) return WithoutPassword("invalid MongoDB URI: " + std::string(error.message), uri);
  if (!mongoc_write_concern_is_acknowledged(mongoc_uri_get_write_concern(parsed.get()))) {
    return "the MongoDB URI asks for unacknowledged writes (w=0); the preview store needs them "
           "acknowledged";
  }
  return std::nullopt;
}

}  // namespace docgate
