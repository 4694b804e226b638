// The lock that tells a running point from a killed one.
//
// `numlab sweep point` holds a write lock on the point's lock file
// (DIR/runs/NAME.lock) for as long as it trains. The kernel drops the lock
// when the process ends, however it ends — SIGKILL, the OOM killer, Slurm's
// time limit — so there is never a stale lock to clean up: a point whose run
// database still says `running` while nobody holds its lock was killed.
// The lock files are never removed (removing one would race with a process
// about to lock it); they are empty but for the holder's "pid N on HOST".
//
// The primitive: an open-file-description lock (fcntl F_OFD_SETLK, Linux
// 3.15 on) over the whole file, because the lock must hold across the nodes
// of a cluster that share the sweep folder:
//   - It is a POSIX byte-range lock to every file system: NFS (v3 through
//     the NLM lock manager, v4 in the protocol) and Lustre (mounted with
//     `-o flock`) send it to the server, as they do SQLite's own locks on the
//     databases; a file system that runs SQLite across nodes carries it.
//   - flock(2), which numlab used before, is no more on NFS: since Linux
//     2.6.12 the NFS client turns it into this very lock (whole file,
//     byte-range), and a mount with `local_lock=flock` keeps it on the node
//     without an error. Using the byte-range lock ourselves means the
//     semantics tested on a local disk are the ones a cluster sees.
//   - Unlike a classic POSIX lock (F_SETLK), it belongs to the open file
//     description, not the process: `numlab merge`, which holds a point's
//     lock shared while it probes the same file through another descriptor,
//     would lose a classic lock at the probe's close().
// Where the file system cannot lock (ENOLCK, EOPNOTSUPP, ...) a point runs
// unguarded and its lock reads `unknown`. A lock is only as global as the
// mount makes it: NFS with `nolock` or `local_lock=posix|all`, and Lustre
// with `localflock`, keep it on one node, silently (docs/SWEEPS.md). All
// processes of one sweep must run the same numlab: on a local disk this lock
// does not see the flock(2) of a numlab older than session 9.
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
  unknown,  ///< the file system does not support fcntl locks
};

/// A lock on one lock file, released when destroyed (or when the process
/// dies): a write (exclusive) lock from take(), a read (shared) one from
/// share_if_idle(). Move-only.
class point_lock {
 public:
  /// Creates `file` if needed and write-locks it, retrying for up to
  /// `patience` while someone else holds it (a merge holds it shared while it
  /// copies a dead point's file). Returns nullopt when another process (or
  /// another lock in this one) still holds it after that. Where the file
  /// system cannot lock the lock is returned unheld (held() false). Throws
  /// lab::input_error naming the file when it cannot be created or opened.
  static std::optional<point_lock> take(const std::filesystem::path& file, std::chrono::milliseconds patience);

  point_lock(point_lock&& other) noexcept;
  point_lock& operator=(point_lock&& other) noexcept;
  point_lock(const point_lock&) = delete;
  point_lock& operator=(const point_lock&) = delete;
  ~point_lock();

  /// A read (shared) lock on `file`, taken only when nobody holds it for
  /// writing, i.e. nobody trains the point: while it lives no `sweep point`
  /// can start training it (their write lock waits), and probes, which look
  /// for write locks only, still read the lock free. nullopt when the file
  /// does not exist, a live process holds it, or the file system cannot
  /// lock. What `numlab merge` holds while it records a dead point's run as
  /// killed, so that a rerun cannot begin a new run under that name meanwhile.
  static std::optional<point_lock> share_if_idle(const std::filesystem::path& file);

  /// False where the file system cannot lock: the point runs, unguarded.
  bool held() const { return held_; }

 private:
  point_lock(int fd, bool held) : fd_(fd), held_(held) {}
  int fd_ = -1;
  bool held_ = false;
};

/// Whether a live process holds the lock of `file` for writing, without
/// waiting and without placing a lock (F_OFD_GETLK).
lock_state probe_lock(const std::filesystem::path& file);

/// Who took the lock of `file` last, as its holder wrote it ("pid 1234 on
/// node7"); empty when the file is absent or empty.
std::string lock_holder(const std::filesystem::path& file);

}  // namespace sweep
