// Point locks as open-file-description (OFD) byte-range locks over the whole
// file (sweep/point_lock.hpp says why this primitive).
#include "sweep/point_lock.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>
#include <utility>

#include <lab/errors.hpp>

namespace sweep {
namespace {

// fcntl's answers that mean "this file system cannot lock", not "someone holds it".
bool unsupported(int error) { return error == ENOLCK || error == EOPNOTSUPP || error == ENOSYS || error == EINVAL; }

// POSIX lets a refused lock answer either.
bool held_by_another(int error) { return error == EAGAIN || error == EACCES; }

// A whole-file lock request (l_len 0: to the end, however the file grows).
struct flock whole_file(short type) {
  struct flock request {};
  request.l_type = type;
  request.l_whence = SEEK_SET;
  request.l_start = 0;
  request.l_len = 0;
  request.l_pid = 0;  // F_OFD_* require 0
  return request;
}

int lock_retrying_eintr(int fd, int command, struct flock& request) {
  int rc = 0;
  do {
    rc = ::fcntl(fd, command, &request);
  } while (rc != 0 && errno == EINTR);
  return rc;
}

// Tries to place a lock of `type` without waiting; 0 or errno.
int try_lock(int fd, short type) {
  auto request = whole_file(type);
  return lock_retrying_eintr(fd, F_OFD_SETLK, request) == 0 ? 0 : errno;
}

std::string this_holder() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "?");
  return "pid " + std::to_string(::getpid()) + " on " + host + "\n";
}

}  // namespace

std::optional<point_lock> point_lock::take(const std::filesystem::path& file, std::chrono::milliseconds patience) {
  const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw lab::input_error(file.string() + ": cannot open the point's lock file: " + std::strerror(errno));
  const auto deadline = std::chrono::steady_clock::now() + patience;
  // A write lock needs the file open for writing (O_RDWR above).
  for (int error = try_lock(fd, F_WRLCK); error != 0; error = try_lock(fd, F_WRLCK)) {
    if (unsupported(error)) return point_lock(fd, false);
    if (!held_by_another(error) || std::chrono::steady_clock::now() >= deadline) {
      ::close(fd);
      if (held_by_another(error)) return std::nullopt;
      throw lab::input_error(file.string() + ": cannot lock the point's lock file: " + std::strerror(error));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // For the people reading a refusal or `sweep status`; the lock itself is the fcntl lock, not this text.
  const std::string holder = this_holder();
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, holder.data(), holder.size(), 0) != static_cast<ssize_t>(holder.size())) {
    // Not fatal: the lock is what guards the point.
  }
  return point_lock(fd, true);
}

std::optional<point_lock> point_lock::share_if_idle(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  if (try_lock(fd, F_RDLCK) != 0) {
    ::close(fd);
    return std::nullopt;
  }
  return point_lock(fd, true);
}

point_lock::point_lock(point_lock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), held_(std::exchange(other.held_, false)) {}

point_lock& point_lock::operator=(point_lock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    held_ = std::exchange(other.held_, false);
  }
  return *this;
}

// Closing the only descriptor of the open file description releases its OFD
// lock (and no other: unlike a classic POSIX lock, closing some other
// descriptor of the same file in this process leaves it in place).
point_lock::~point_lock() {
  if (fd_ >= 0) ::close(fd_);
}

lock_state probe_lock(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return lock_state::free;  // never taken: nobody runs the point
  // Asks whether a read lock could be placed, placing none: only a holder's
  // write lock conflicts, and a `take` racing the probe never has to wait.
  auto request = whole_file(F_RDLCK);
  lock_state state = lock_state::free;
  if (lock_retrying_eintr(fd, F_OFD_GETLK, request) != 0) state = lock_state::unknown;
  else if (request.l_type != F_UNLCK) state = lock_state::held;
  ::close(fd);
  return state;
}

std::string lock_holder(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  char text[300] = {};
  const ssize_t n = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  std::string holder(text, n > 0 ? static_cast<std::size_t>(n) : 0);
  while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\0')) holder.pop_back();
  return holder;
}

}  // namespace sweep
