// flock(2)-based point locks (sweep/point_lock.hpp).
#include "sweep/point_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>
#include <utility>

#include <lab/errors.hpp>

namespace sweep {
namespace {

// flock's answers that mean "this file system cannot lock", not "someone holds it".
bool unsupported(int error) { return error == ENOLCK || error == EOPNOTSUPP || error == ENOSYS || error == EINVAL; }

int flock_retrying_eintr(int fd, int operation) {
  int rc = 0;
  do {
    rc = ::flock(fd, operation);
  } while (rc != 0 && errno == EINTR);
  return rc;
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
  while (flock_retrying_eintr(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    if (unsupported(error)) return point_lock(fd, false);
    if (error != EWOULDBLOCK || std::chrono::steady_clock::now() >= deadline) {
      ::close(fd);
      if (error == EWOULDBLOCK) return std::nullopt;
      throw lab::input_error(file.string() + ": cannot lock the point's lock file: " + std::strerror(error));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // For the people reading a refusal or `sweep status`; the lock itself is the flock, not this text.
  const std::string holder = this_holder();
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, holder.data(), holder.size(), 0) != static_cast<ssize_t>(holder.size())) {
    // Not fatal: the flock is what guards the point.
  }
  return point_lock(fd, true);
}

std::optional<point_lock> point_lock::share_if_idle(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  if (flock_retrying_eintr(fd, LOCK_SH | LOCK_NB) != 0) {
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

// Closing the only descriptor of the open file description releases the flock.
point_lock::~point_lock() {
  if (fd_ >= 0) ::close(fd_);
}

lock_state probe_lock(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return lock_state::free;  // never taken: nobody runs the point
  lock_state state = lock_state::free;
  if (flock_retrying_eintr(fd, LOCK_SH | LOCK_NB) != 0) {
    state = errno == EWOULDBLOCK ? lock_state::held : lock_state::unknown;
  }
  ::close(fd);  // drops the shared lock at once
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
