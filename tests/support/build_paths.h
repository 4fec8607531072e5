#pragma once

// Files of the checkout and of the build that tests and benchmarks use (the relevance set,
// deploy/haproxy.cfg, the OpenAPI document and its checker, the docgate binary). The build names
// each by its path relative to the folder of the executable that uses it (tests/CMakeLists.txt,
// bench/CMakeLists.txt), never by an absolute path: the compile commands are then the same in
// every checkout, and a clone in another folder compiles from ccache's entries of the last
// (Makefile).

#include <filesystem>
#include <string>

namespace docgate::testing {

// `relative` (to this executable's folder) as an absolute path.
inline std::string BesideExecutable(const std::string& relative) {
  static const std::filesystem::path folder =
      std::filesystem::read_symlink("/proc/self/exe").parent_path();
  return (folder / relative).lexically_normal().string();
}

}  // namespace docgate::testing
