#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace docgate {

// Why `uri` cannot be MongoConfig::uri, in one line that never contains the URI's password, or
// nullopt when it can: libmongoc must accept it as a mongodb:// or mongodb+srv:// connection
// string, and its writes must be acknowledged (not w=0), as the version guard reads their errors.
// Resolves no name and connects to nothing. Thread-safe.
std::optional<std::string> ValidateMongoUri(const std::string& uri);

// `text` with every occurrence of the password in `uri` (as written there, and percent-decoded)
// replaced by "***", for messages about a URI that may carry credentials. `uri` need not be valid.
std::string WithoutPassword(std::string text, std::string_view uri);

}  // namespace docgate
