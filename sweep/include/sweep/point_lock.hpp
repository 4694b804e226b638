// The lock that tells a running point from a killed one.
//
// `numlab sweep point` holds an exclusive flock(2) on the point's lock file
// (DIR/runs/NAME.lock) for as long as it trains. The kernel drops the lock
// when the process ends, however it ends — SIGKILL, the OOM killer, Slurm's
// time limit — so there is never a stale lock to clean up: a point whose run
// database still says `running` while nobody holds its lock was killed.
// The lock files are never removed (removing one would race with a process
// about to lock it); they are empty but for the holder's "pid N on HOST".
//
// Across machines the lock is only as good as the file system's flock: local
// disks, NFSv4 (Linux emulates flock with byte-range locks there) and Lustre
// mounted with `-o flock` carry it; where flock fails with ENOLCK or
// EOPNOTSUPP a point runs unguarded and its lock reads `unknown`.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

namespace sweep {

/// What a probe of a lock file found.
enum class lock_state {
  free,     ///< nobody holds it (or the file does not exist)
  held,     ///< a live process holds it
  unknown,  ///< the file system does not support flock
};

/// An exclusive flock on one lock file, released when destroyed (or when the
/// process dies). Move-only.
class point_lock {
 public:
  /// Creates `file` if needed and locks it, retrying for up to `patience`
  /// while someone else holds it (a probe holds it for microseconds). Returns
  /// nullopt when another process still holds it after that. Where the file
  /// system has no flock the lock is returned unheld (held() false). Throws
  /// lab::input_error naming the file when it cannot be created or opened.
  static std::optional<point_lock> take(const std::filesystem::path& file, std::chrono::milliseconds patience);

  point_lock(point_lock&& other) noexcept;
  point_lock& operator=(point_lock&& other) noexcept;
  point_lock(const point_lock&) = delete;
  point_lock& operator=(const point_lock&) = delete;
  ~point_lock();

  /// A shared flock on `file`, taken only when no process holds it
  /// exclusively, i.e. nobody trains the point: while it lives no `sweep
  /// point` can start training it (their exclusive lock waits), and probes,
  /// which take shared locks too, still read the lock free. nullopt when the
  /// file does not exist, a live process holds it, or the file system has no
  /// flock. What `numlab merge` holds while it records a dead point's run as
  /// killed, so that a rerun cannot begin a new run under that name meanwhile.
  static std::optional<point_lock> share_if_idle(const std::filesystem::path& file);

  /// False where the file system does not support flock: the point runs, unguarded.
  bool held() const { return held_; }

 private:
  point_lock(int fd, bool held) : fd_(fd), held_(held) {}
  int fd_ = -1;
  bool held_ = false;
};

/// Whether a live process holds the lock of `file`, without waiting. The
/// probe takes a shared lock for an instant, which conflicts only with a
/// holder's exclusive one.
lock_state probe_lock(const std::filesystem::path& file);

/// Who took the lock of `file` last, as its holder wrote it ("pid 1234 on
/// node7"); empty when the file is absent or empty.
std::string lock_holder(const std::filesystem::path& file);

}  // namespace sweep
