#include "adapters/pg/pg_errors.h"

#include <pqxx/except>
#include <string>

#include "core/error.h"

namespace docgate {
namespace {

bool IsUnavailableState(const std::string& state) {
  return state.starts_with("08") || state == "57P01" || state == "57P02" || state == "57P03" ||
         state == "53300" || state == "57014" || state == "40001" || state == "40P01";
}

// Server messages end in newlines and may span lines ("ERROR: ...\nDETAIL: ..."); keep one line.
std::string OneLine(std::string_view text) {
  std::string line;
  line.reserve(text.size());
  for (char c : text) line.push_back(c == '\n' || c == '\r' ? ' ' : c);
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

std::string Message(std::string_view operation, std::string_view what) {
  return "postgres: " + std::string(operation) + ": " + OneLine(what);
}

}  // namespace

void RethrowAsStorageFailure(std::string_view operation) {
  try {
    throw;
  } catch (const pqxx::broken_connection& e) {
    throw StorageUnavailable(Message(operation, e.what()));
  } catch (const pqxx::in_doubt_error& e) {
    throw StorageUnavailable(Message(operation, std::string("outcome unknown: ") + e.what()));
  } catch (const pqxx::transaction_rollback& e) {
    throw StorageUnavailable(Message(operation, e.what()));
  } catch (const pqxx::sql_error& e) {
    const std::string text = OneLine(e.what()) + " [SQLSTATE " + e.sqlstate() + "]";
    if (IsUnavailableState(e.sqlstate())) throw StorageUnavailable(Message(operation, text));
    throw StorageError(Message(operation, text));
  } catch (const pqxx::pqxx_exception& e) {
    throw StorageError(Message(operation, e.base().what()));
  }
}

bool HandlingConnectionLoss() {
  try {
    throw;
  } catch (const pqxx::broken_connection&) {
    return true;
  } catch (const pqxx::in_doubt_error&) {
    return true;
  } catch (const pqxx::sql_error& e) {
    return e.sqlstate().starts_with("08") || e.sqlstate().starts_with("57P");
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace docgate
