// A sweep folder: the expanded grid written down once, so that executors
// (GNU parallel, a Slurm job array) address points by index and any later
// command reads the same points back.
//
//   DIR/spec.yml          the spec as given (for the record)
//   DIR/points.tsv        header "index name KEY..." then one row per point (tab-separated)
//   DIR/configs/NAME.yml  each point's resolved config (numlab train --config reads it)
//   DIR/runs/NAME.db      each point's run database, written by `numlab sweep point`
//   DIR/runs/NAME.lock    held by the process training the point (sweep/point_lock.hpp)
//   DIR/logs/             the executors' per-point output
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sweep/spec.hpp"

namespace sweep {

/// Where a point stands, read from its run database and its lock.
enum class point_state {
  finished,     ///< trained to the end
  diverged,     ///< the loss became NaN or infinite: an outcome, not retried
  trapped,      ///< a floating-point trap stopped it: an outcome, not retried
  failed,       ///< stopped by an error, its database unreadable, or tried and left no database: retried
  interrupted,  ///< stopped by SIGINT: retried
  running,      ///< a live process holds its lock (or, where the file system cannot lock, its run is unfinished)
  killed,       ///< its run is unfinished and nobody holds its lock: the process died (SIGKILL, OOM, time limit); retried
  not_started,  ///< never tried: no database, no lock file
};

/// "finished", "diverged", ..., "killed", "not-started".
std::string_view to_string(point_state state);
/// True for the states a rerun keeps (finished, diverged, trapped).
bool is_done(point_state state);

/// The files of a sweep folder.
struct layout {
  std::filesystem::path dir{};
  std::filesystem::path points() const { return dir / "points.tsv"; }
  std::filesystem::path config(const point& p) const { return dir / "configs" / (p.name + ".yml"); }
  std::filesystem::path database(const point& p) const { return dir / "runs" / (p.name + ".db"); }
  std::filesystem::path lock(const point& p) const { return dir / "runs" / (p.name + ".lock"); }
  std::filesystem::path logs() const { return dir / "logs"; }
};

/// The sweep folder and point of a run database given as a file (what
/// `numlab merge` is given): DIR/runs/NAME.db belongs to point NAME of DIR
/// when DIR/runs/NAME.lock exists beside it, i.e. some `sweep point` ran it.
/// The point carries its name alone (index 0, no coordinates), which is all
/// state_of reads. nullopt for any other file.
std::optional<std::pair<layout, point>> point_of_database(const std::filesystem::path& database);

/// Writes the plan of `s` into `dir` (created if absent). Throws
/// lab::input_error when `dir` already holds the plan of a different grid or
/// different configurations: a sweep folder belongs to one sweep.
void write_plan(const spec& s, const std::vector<point>& points, std::span<const std::filesystem::path> config_dirs,
                const std::filesystem::path& dir);

/// The points of the plan in `dir`; throws lab::input_error when there is none.
std::vector<point> read_plan(const std::filesystem::path& dir);

/// The state of `p` as anyone but its trainer sees it: `running` while a live
/// process holds the point's lock, without opening its run database (whose
/// writer may be on another node: SQLite's WAL mode wants every reader on the
/// writer's node); otherwise, holding the lock shared so that no trainer
/// begins meanwhile, its run database's last run status, with a run not ended
/// read as `killed`. Where the file system cannot lock, the database alone.
point_state state_of(const layout& files, const point& p);

/// What the run database of `p` alone says (`running` for a run not ended,
/// `not_started` for no file). For a process that holds the point's lock —
/// for writing (`sweep point`, whom state_of would report as `running`) or
/// shared (`numlab merge`) — so that no other process writes the database.
point_state recorded_state(const layout& files, const point& p);

/// A Slurm batch script running `indices` of the sweep in `dir` as one job
/// array (at most `resources.max_parallel` at once), each task calling
/// `numlab sweep point DIR $SLURM_ARRAY_TASK_ID` with `numlab`.
std::string slurm_script(const std::string& sweep_name, const slurm_resources& resources,
                         const std::filesystem::path& dir, const std::filesystem::path& numlab,
                         const std::vector<std::size_t>& indices);

}  // namespace sweep
