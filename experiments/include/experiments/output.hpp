// Writing experiment results: results/NAME.md, results/NAME.csv, the run
// database results/NAME.db and the top-level EXPERIMENTS.md, each replaced
// atomically.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "experiment.hpp"

namespace numlab::experiments {

/// A file written under a temporary name next to its destination
/// ("DEST.partial-PID"): commit() renames it into place; the destructor
/// removes it otherwise (with any SQLite -wal/-shm/-journal companions), so
/// the destination is either its old content or the whole new one.
class staged_path {
 public:
  /// Removes a stale temporary of the same name.
  explicit staged_path(std::filesystem::path destination);
  ~staged_path();
  staged_path(staged_path&& other) noexcept
      : destination_(std::move(other.destination_)), temporary_(std::move(other.temporary_)),
        committed_(std::exchange(other.committed_, true)) {}
  staged_path(const staged_path&) = delete;
  staged_path& operator=(const staged_path&) = delete;
  staged_path& operator=(staged_path&&) = delete;

  [[nodiscard]] const std::filesystem::path& temporary() const { return temporary_; }
  [[nodiscard]] const std::filesystem::path& destination() const { return destination_; }
  /// Renames the temporary to the destination; throws std::runtime_error naming both on failure.
  void commit();

 private:
  void remove_temporary() const;

  std::filesystem::path destination_;
  std::filesystem::path temporary_;
  bool committed_ = false;
};

/// The run database of one experiment run, output_dir/NAME.db: training
/// experiments record into path() (run_options::run_database), and commit()
/// puts the file in place once the results are written; a failed or
/// interrupted experiment leaves the previous NAME.db as it was.
class staged_run_database {
 public:
  /// Creates output_dir if needed.
  staged_run_database(const std::filesystem::path& output_dir, std::string_view name);
  /// Where to record while the experiment runs.
  [[nodiscard]] const std::filesystem::path& path() const { return file_.temporary(); }
  /// Renames the recorded file into place and returns its final path;
  /// nullopt, renaming nothing, when the experiment recorded no run.
  std::optional<std::filesystem::path> commit();

 private:
  staged_path file_;
};

/// The Markdown report of one run: description, settings, tables, findings
/// and the comparison with the tutorial's printed values.
std::string render_markdown(const experiment& e, const experiment_result& r);

/// The CSV of one run: every table, then the comparison with the tutorials
/// (id "comparison") and the reference facts (id "reference-facts"), a blank
/// line between tables; throws std::logic_error when two tables share an id.
std::string render_csv(const experiment_result& r);

/// Writes `text` to `path` through a temporary file in the same folder and a
/// rename, so `path` is either its old content or the whole new one. Throws
/// std::runtime_error naming the path on failure.
void write_file_atomically(const std::filesystem::path& path, std::string_view text);

/// Writes output_dir/NAME.md and output_dir/NAME.csv (creating the folder);
/// both are fully written to temporaries before either is renamed into place.
void write_results(const experiment& e, const experiment_result& r,
                   const std::filesystem::path& output_dir);

/// EXPERIMENTS.md: a header that says which command regenerated the file and
/// links output_dir/full/NAME.md where they exist, an index, then for every
/// registered experiment its output_dir/NAME.md verbatim (or a line saying
/// how to generate it).
std::string render_experiments_md(const std::filesystem::path& output_dir);

}  // namespace numlab::experiments
