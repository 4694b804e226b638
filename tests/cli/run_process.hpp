// Runs a program as a child process with given stdin text and captures its
// exit code, stdout and stderr (through temporary files, so that no pipe can
// fill up and deadlock).
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

extern char** environ;

namespace numlab::testing {

struct process_result {
  int exit_code = -1;  ///< the exit status, or 128 + signal number
  std::string out;
  std::string err;
};

/// A temporary file that is removed when it goes out of scope.
class temporary_file {
 public:
  temporary_file() {
    const char* dir = std::getenv("TMPDIR");
    path_ = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/numlab_cli_XXXXXX";
    const int fd = ::mkstemp(path_.data());
    if (fd < 0) throw std::runtime_error("cannot create a temporary file in " + path_);
    ::close(fd);
  }
  ~temporary_file() { std::remove(path_.c_str()); }
  temporary_file(const temporary_file&) = delete;
  temporary_file& operator=(const temporary_file&) = delete;

  const std::string& path() const { return path_; }
  std::string read() const {
    std::ifstream in(path_, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  void write(std::string_view text) const { std::ofstream(path_, std::ios::binary) << text; }

 private:
  std::string path_;
};

/// Runs argv[0] (searched on PATH) with the given arguments and stdin.
inline process_result run_process(const std::vector<std::string>& argv, std::string_view input = {}) {
  temporary_file in, out, err;
  in.write(input);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, in.path().c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out.path().c_str(), O_WRONLY | O_TRUNC, 0);
  posix_spawn_file_actions_addopen(&actions, 2, err.path().c_str(), O_WRONLY | O_TRUNC, 0);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) throw std::runtime_error("cannot start " + argv[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  process_result r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = out.read();
  r.err = err.read();
  return r;
}

/// Runs the numlab executable under test with `args`.
inline process_result run_numlab(std::vector<std::string> args, std::string_view input = {}) {
  // A new vector, not args.insert(args.begin(), ...): GCC 12 at -O3 reports
  // that insert's string move as out of bounds (a false -Warray-bounds).
  std::vector<std::string> argv{NUMLAB_BINARY};
  argv.insert(argv.end(), std::make_move_iterator(args.begin()), std::make_move_iterator(args.end()));
  return run_process(argv, input);
}

/// Whether `part` occurs in `text`.
inline bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

/// The lines of a text, without their newlines.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

/// The whitespace-separated cells of the first line of `text` whose first cell is `key`.
inline std::vector<std::string> row_starting_with(const std::string& text, const std::string& key) {
  for (const std::string& line : lines_of(text)) {
    std::istringstream in(line);
    std::vector<std::string> cells;
    for (std::string cell; in >> cell;) cells.push_back(cell);
    if (!cells.empty() && cells.front() == key) return cells;
  }
  return {};
}

}  // namespace numlab::testing
