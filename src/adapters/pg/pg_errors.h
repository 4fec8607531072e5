#pragma once

#include <string_view>

namespace docgate {

// Call only while handling an exception (inside a catch block). Rethrows a libpqxx exception as
// StorageUnavailable when the database cannot serve right now (connection lost or refused, SQLSTATE
// class 08, 57P01/57P02/57P03 shutdown, 53300 too many connections, 57014 statement timeout or
// cancel, 40001/40P01 serialization failure or deadlock, a commit whose outcome is unknown) and as
// StorageError otherwise, the message prefixed by `operation`. StorageUnavailable, StorageError and
// exceptions that do not come from libpqxx are rethrown unchanged.
[[noreturn]] void RethrowAsStorageFailure(std::string_view operation);

// Call only while handling an exception: true when it says the connection itself is gone (as
// opposed to a failed statement on a healthy connection).
bool HandlingConnectionLoss();

}  // namespace docgate
