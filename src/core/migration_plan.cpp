#include "core/migration_plan.h"

#include <charconv>

#include "core/error.h"

namespace docgate {

std::int64_t MigrationVersion(const std::string& name) {
  std::int64_t version = 0;
  const char* begin = name.data();
  const char* end = begin + name.size();
  const auto [digits_end, error] = std::from_chars(begin, end, version);
  const bool well_formed = error == std::errc{} && version > 0 && digits_end != begin &&
                           digits_end < end && *digits_end == '_' && name.ends_with(".sql") &&
                           name.front() != '-' && name.front() != '+';
  if (!well_formed) {
    throw StorageError("migration '" + name + "' is not named NNNN_description.sql");
  }
  return version;
}

std::vector<PendingMigration> PlanMigrations(const std::vector<EmbeddedFile>& known,
                                             const std::vector<AppliedMigration>& applied) {
  std::vector<PendingMigration> files;
  for (const EmbeddedFile& file : known) {
    const std::int64_t version = MigrationVersion(std::string(file.name));
    if (!files.empty() && version <= files.back().version) {
      throw StorageError("migration versions must increase: " + std::string(file.name));
    }
    files.push_back({version, &file});
  }
  for (std::size_t i = 0; i < applied.size(); ++i) {
    const std::string recorded =
        std::to_string(applied[i].version) + " (" + applied[i].name + ")";
    if (i >= files.size() || files[i].version > applied[i].version) {
      throw StorageError("the database records migration " + recorded +
                         ", which this docgate does not have: it was written by a newer docgate");
    }
    if (files[i].version != applied[i].version || files[i].file->name != applied[i].name) {
      throw StorageError("the database records migration " + recorded +
                         " where this docgate has " + std::string(files[i].file->name));
    }
  }
  files.erase(files.begin(), files.begin() + static_cast<std::ptrdiff_t>(applied.size()));
  return files;
}

}  // namespace docgate
