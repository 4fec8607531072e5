#pragma once

namespace docgate {

// A hold on libmongoc's process-wide state, taken by every user of the driver (a store, the URI
// check) for as long as it uses it: the first hold in the process sends libmongoc's warnings and
// errors to spdlog (and drops its debug chatter) and runs mongoc_init; mongoc_cleanup runs once at
// exit, unless a hold is still alive then. Thread-safe.
class MongoDriver {
 public:
  MongoDriver();
  ~MongoDriver();
  MongoDriver(const MongoDriver&) = delete;
  MongoDriver& operator=(const MongoDriver&) = delete;
};

}  // namespace docgate
