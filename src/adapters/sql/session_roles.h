#pragma once

// A session's roles as the databases keep them (kh_session.roles): space-separated, in order, ""
// for none. Shared by the PostgreSQL and SQLite session stores. Header-only.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace docgate::sql {

// `roles` joined by spaces; nullopt for a role that is empty or holds a space (it would come
// back as other roles), which the stores refuse with a StorageError.
inline std::optional<std::string> JoinSessionRoles(const std::vector<std::string>& roles) {
  std::string joined;
  for (const std::string& role : roles) {
    if (role.empty() || role.find(' ') != std::string::npos) return std::nullopt;
    if (!joined.empty()) joined += ' ';
    joined += role;
  }
  return joined;
}

inline std::vector<std::string> SplitSessionRoles(std::string_view joined) {
  std::vector<std::string> roles;
  while (!joined.empty()) {
    const std::size_t end = joined.find(' ');
    roles.emplace_back(joined.substr(0, end));
    joined = end == std::string_view::npos ? std::string_view() : joined.substr(end + 1);
  }
  return roles;
}

}  // namespace docgate::sql
