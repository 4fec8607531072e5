#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace docgate {

// How docgate reaches MongoDB for the preview projection.
struct MongoConfig {
  // DOCGATE_MONGODB_URI: mongodb://[user:password@]host[:port][,...][/database][?options] or
  // mongodb+srv://...; the previews go to the URI's database, `docgate` when it names none. Every
  // libmongoc option in it is honoured except the timeouts below, which replace the URI's own.
  std::string uri;
  // connectTimeoutMS (TCP connect + TLS + handshake) and serverSelectionTimeoutMS (how long an
  // operation waits for a usable server): an unreachable server fails a call after about this.
  std::chrono::milliseconds connect_timeout{5000};
  // socketTimeoutMS (one operation's round trip on an open connection) and waitQueueTimeoutMS
  // (the wait for a free pooled connection).
  std::chrono::milliseconds operation_timeout{5000};
};

// Why `config` cannot be used, in one line naming the DOCGATE_MONGODB_* variable (never echoing
// the URI's password), or nullopt when it can: an empty URI or one ValidateMongoUri accepts, and
// positive timeouts. Resolves no name and connects to nothing.
std::optional<std::string> ValidateMongoConfig(const MongoConfig& config);

}  // namespace docgate
