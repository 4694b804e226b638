// A fresh folder for one sweep or merge test, removed at scope exit.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "scratch_dir.hpp"

namespace sweep_test {

struct scratch {
  test_support::scratch_dir folder;
  std::filesystem::path dir;
  explicit scratch(const std::string& tag) : folder("sweep", tag), dir(folder.path()) {}

  // Every name in the folder, sorted, but for the -wal and -shm files SQLite
  // keeps beside a database that exists (a read-only open may leave them).
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      const auto name = e.path().filename().string();
      const bool side_file = name.size() > 4 && (name.ends_with("-wal") || name.ends_with("-shm")) &&
                             std::filesystem::exists(dir / name.substr(0, name.size() - 4));
      if (!side_file) out.push_back(name);
    }
    std::sort(out.begin(), out.end());
    return out;
  }
};

}  // namespace sweep_test
