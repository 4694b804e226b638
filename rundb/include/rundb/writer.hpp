// Writes runs into a run database from any thread without blocking on disk.
//
// Records are queued and committed by a background thread in batched
// transactions. The database runs in WAL mode, so readers (numlab inspect,
// the GUI) can read while a run trains, and a process killed at any moment
// leaves a file that opens with every committed transaction intact.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>
#include <variant>
#include <vector>

#include "rundb/records.hpp"

namespace rundb {

/// Tuning of a writer.
struct writer_options {
  /// Records a single transaction may hold; larger backlogs span several.
  std::size_t max_batch = 4096;
  /// Producers block while this many records wait to be written (back-pressure).
  std::size_t max_queued = 1 << 18;
  /// PRAGMA synchronous=FULL (survives power loss) instead of NORMAL (survives
  /// a killed process, which is what WAL guarantees without fsync per commit).
  bool sync_every_commit = false;
};

/// Appends runs to a database file, creating it (and its schema) if absent.
/// All methods are thread-safe. A failure on the background thread (disk
/// full, finish_run of an unknown run) is rethrown as rundb::error by the next
/// call, and by every call after it: records queued after a failure are
/// dropped, since a run with holes would read as whole.
class writer {
 public:
  /// Opens or creates `file`. Throws not_a_run_database / newer_schema /
  /// corrupt_database when an existing file cannot be appended to.
  explicit writer(std::filesystem::path file, writer_options options = {});
  /// Commits everything queued, then closes. Never throws.
  ~writer();
  writer(const writer&) = delete;
  writer& operator=(const writer&) = delete;

  /// Inserts a run with status `running` and returns its id (waits for the commit).
  run_id begin_run(run_info run);
  /// Queues one step's scalars.
  void add_step(step_record step);
  /// Queues one tensor's statistics (and histogram, if non-empty).
  void add_tensor_stats(tensor_stats_record stats);
  /// Queues many tensors' statistics at once, so that the background thread
  /// takes them together and commits them in one transaction (several when
  /// there are more than max_batch): a producer that gathers a step's records
  /// pays one commit per step, not one per tensor. Every record is checked as
  /// add_tensor_stats checks it before any is queued.
  void add_tensor_stats(std::vector<tensor_stats_record> batch);
  /// Queues an event.
  void add_event(event_record event);
  /// Queues an evaluation (a NaN loss is stored as NULL).
  void add_evaluation(evaluation_record evaluation);
  /// Queues what a scaled-format recipe did to one tensor at one step; it
  /// commits in the same batched transactions as the tensor statistics.
  /// Throws rundb::error at once for a one-bin scale histogram.
  void add_scale_stats(scale_stats_record stats);
  /// Queues `run`'s sweep coordinates, replacing any it had. Throws
  /// rundb::error at once for an empty or repeated key; an unknown run fails
  /// on the background thread like finish_run's.
  void set_coordinates(run_id run, std::vector<coordinate> coordinates);
  /// Queues a shadow-mode error.
  void add_shadow_error(shadow_error_record error);
  /// Queues the parameters of a format used by the run (replaces a same-named one).
  void declare_format(format_info format);
  /// Queues the run's final status (and end time); then waits for the commit.
  void finish_run(run_id run, run_status status);
  /// Returns once everything queued before the call is committed.
  void flush();

  /// The file being written.
  const std::filesystem::path& path() const { return path_; }

 private:
  struct finish_job {
    run_id run;
    run_status status;
  };
  struct coordinates_job {
    run_id run;
    std::vector<coordinate> coordinates;
  };
  using job = std::variant<step_record, tensor_stats_record, event_record, evaluation_record,
                           shadow_error_record, format_info, scale_stats_record, coordinates_job, finish_job>;
  class connection;

  void enqueue(job item);
  void enqueue_all(std::vector<job> items);
  void background_loop();
  void throw_if_failed();  // requires mutex_ held

  std::filesystem::path path_{};
  writer_options options_;
  std::unique_ptr<connection> db_{};
  std::mutex db_mutex_{};  // serialises use of db_ between the worker and begin_run
  std::mutex mutex_{};     // guards the queue and counters below
  std::condition_variable work_ready_{};
  std::condition_variable progress_{};
  std::deque<job> queue_{};
  std::uint64_t enqueued_ = 0;   // jobs ever queued
  std::uint64_t committed_ = 0;  // jobs ever committed (or dropped after a failure)
  bool stopping_ = false;
  std::exception_ptr failure_{};
  std::thread worker_{};
};

}  // namespace rundb
