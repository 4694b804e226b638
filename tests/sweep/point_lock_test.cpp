// The point lock's primitive (sweep/point_lock.hpp): an open-file-description
// lock over the whole file. Each test pins one property the choice rests on,
// and fails for the alternatives: other processes see it as a POSIX
// byte-range lock, which is what NFS and Lustre carry between nodes (flock(2)
// on a local disk would not be seen); two descriptors of one process exclude
// each other, and a probe's close() keeps the lock it probed (a classic POSIX
// lock, owned by the process, would do neither); and the kernel drops it
// when its process is killed. No NFS mount can be tested here: this
// machine's kernel has no NFS client (nothing in /proc/filesystems, no modules).
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>

#include "sweep/point_lock.hpp"
#include "sweep_scratch.hpp"

namespace {

using sweep_test::scratch;
using std::chrono::milliseconds;

// In a child process: what a classic POSIX write lock on `file` (another
// process's fcntl, an NFS server's view) gets: 0, or the errno.
int classic_write_lock_in_child(const std::filesystem::path& file) {
  const pid_t child = ::fork();
  if (child == 0) {
    const int fd = ::open(file.c_str(), O_RDWR | O_CLOEXEC);
    struct flock request {};
    request.l_type = F_WRLCK;
    request.l_whence = SEEK_SET;
    const int rc = fd < 0 ? 100 : ::fcntl(fd, F_SETLK, &request) == 0 ? 0 : errno;
    ::_exit(rc);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(PointLock, OtherProcessesSeeItAsAPosixByteRangeLock) {
  scratch s("lock-posix");
  const auto file = s.dir / "p.lock";
  {
    const auto lock = sweep::point_lock::take(file, milliseconds(0));
    ASSERT_TRUE(lock && lock->held());
    const int refused = classic_write_lock_in_child(file);
    EXPECT_TRUE(refused == EAGAIN || refused == EACCES) << "a classic fcntl lock in another process got " << refused;
  }
  EXPECT_EQ(classic_write_lock_in_child(file), 0);  // released with the lock's descriptor
}

TEST(PointLock, TwoDescriptorsOfOneProcessExcludeEachOther) {
  scratch s("lock-same-process");
  const auto file = s.dir / "p.lock";
  const auto first = sweep::point_lock::take(file, milliseconds(0));
  ASSERT_TRUE(first && first->held());
  EXPECT_FALSE(sweep::point_lock::take(file, milliseconds(50)).has_value());
  EXPECT_EQ(sweep::probe_lock(file), sweep::lock_state::held);
  EXPECT_FALSE(sweep::point_lock::share_if_idle(file).has_value());
}

// What `numlab merge` does: hold a point's lock shared, probe the point's
// state through another descriptor (which it closes), then copy the file.
TEST(PointLock, AProbeKeepsTheSharedLockItProbedBeside) {
  scratch s("lock-probe-close");
  const auto file = s.dir / "p.lock";
  std::ofstream(file).close();
  const auto shared = sweep::point_lock::share_if_idle(file);
  ASSERT_TRUE(shared && shared->held());
  EXPECT_EQ(sweep::probe_lock(file), sweep::lock_state::free);  // readers do not exclude readers
  EXPECT_FALSE(sweep::point_lock::take(file, milliseconds(50)).has_value()) << "the probe's close dropped the lock";
  const int refused = classic_write_lock_in_child(file);
  EXPECT_TRUE(refused == EAGAIN || refused == EACCES) << refused;
}

TEST(PointLock, AKilledHoldersLockIsFreeAtOnce) {
  scratch s("lock-killed");
  const auto file = s.dir / "p.lock";
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  if (child == 0) {
    const auto lock = sweep::point_lock::take(file, milliseconds(0));
    const char byte = lock && lock->held() ? 'y' : 'n';
    if (::write(ready[1], &byte, 1) != 1) ::_exit(1);
    for (;;) ::pause();
  }
  ::close(ready[1]);
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  ::close(ready[0]);
  EXPECT_EQ(byte, 'y');
  EXPECT_EQ(sweep::probe_lock(file), sweep::lock_state::held);
  EXPECT_FALSE(sweep::point_lock::take(file, milliseconds(50)).has_value());
  EXPECT_EQ(sweep::lock_holder(file), "pid " + std::to_string(child) + " on " + [] {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    return std::string(host);
  }());
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  EXPECT_EQ(sweep::probe_lock(file), sweep::lock_state::free);
  const auto lock = sweep::point_lock::take(file, milliseconds(0));
  EXPECT_TRUE(lock && lock->held());
}

}  // namespace
