#pragma once

// A fresh directory for one test's files (a SQLite database), removed with everything in it.

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

namespace docgate {

class TempDir {
 public:
  explicit TempDir(const std::filesystem::path& root = std::filesystem::temp_directory_path()) {
    std::string pattern = (root / "docgate-test-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr)
      throw std::runtime_error("mkdtemp failed in " + root.string());
    path_ = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace docgate
