#pragma once

// What every PostgreSQL store's SQL is made of: a named statement, prepared on each connection of
// the shared PgSession. Each store keeps its own statements beside it (ADR 0006).

namespace docgate::pg_sql {

// A statement prepared once per connection.
struct Statement {
  const char* name;
  const char* sql;
};

// The session's own statement (PgSession::Ping).
constexpr Statement kPing{"ping", "SELECT 1"};

}  // namespace docgate::pg_sql
