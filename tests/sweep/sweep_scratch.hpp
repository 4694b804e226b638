// A fresh folder for one sweep or merge test, removed at scope exit.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace sweep_test {

struct scratch {
  std::filesystem::path dir;
  explicit scratch(const std::string& tag)
      : dir(std::filesystem::temp_directory_path() / ("numlab-sweep-" + tag + "-" + std::to_string(getpid()))) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~scratch() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  scratch(const scratch&) = delete;
  scratch& operator=(const scratch&) = delete;

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
