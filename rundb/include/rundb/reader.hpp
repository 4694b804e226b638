// Reads run databases: the stable API behind `numlab inspect` and numlab-gui.
//
// Opening checks that the file is a run database this build understands;
// every query turns damage it meets into a rundb exception (never a crash).
// A reader sees a consistent snapshot per query and may be used while a
// writer in another process appends. One reader per thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "rundb/merged_steps.hpp"
#include "rundb/records.hpp"

namespace rundb {

namespace detail {
class database;
}

/// An inclusive range of steps.
struct step_range {
  std::int64_t first = std::numeric_limits<std::int64_t>::min();
  std::int64_t last = std::numeric_limits<std::int64_t>::max();
};

/// Which tensor statistics to read. Unset filters match everything.
struct stats_query {
  run_id run = 0;
  std::optional<std::string> layer{};
  std::optional<std::string> role{};
  step_range steps{};
  bool with_histograms = false;  ///< histograms are the bulk of the data; off by default
};

/// Which scale statistics to read. Unset filters match everything.
struct scale_stats_query {
  run_id run = 0;
  std::optional<std::string> layer{};
  std::optional<std::string> role{};
  step_range steps{};
  bool with_histograms = false;  ///< scale histograms and amax histories; off by default
};

/// Totals of one layer and role over a whole run (for summaries and rankings).
struct layer_totals {
  std::string layer{};
  std::string role{};
  std::int64_t records = 0;  ///< tensor_stats rows summed
  std::uint64_t count = 0;   ///< values summed over those rows
  std::uint64_t underflows = 0;
  std::uint64_t overflows = 0;
  std::uint64_t subnormals = 0;
  std::uint64_t nans = 0;
  std::uint64_t infs = 0;
  std::uint64_t swamped = 0;
  std::uint64_t partially_swamped = 0;
};

/// The per-tensor statistics tables: tensor_stats (every traced tensor) and
/// scale_stats (what a scaled-format recipe did to a tensor; schema v3 on).
enum class stats_table { tensor_stats, scale_stats };

/// A count column that can be mapped over layers and steps: of tensor_stats
/// (zeros .. partially_swamped) or of scale_stats (block_underflow,
/// underflow_to_zero, saturated: num::scaled_counts' fields of those names).
enum class counted_stat {
  zeros, subnormals, underflows, overflows, nans, infs, swamped, partially_swamped,
  block_underflow, underflow_to_zero, saturated
};
/// The table whose column a counted_stat is.
stats_table table_of(counted_stat stat);

/// One cell of a layers x steps map: the worst step of one layer in one step
/// bucket (the step, and role, whose fraction counted / values is highest).
struct layer_step_cell {
  std::string layer{};
  std::int64_t step = 0;        ///< where the cell's bucket starts (the step itself when steps are not merged)
  std::int64_t worst_step = 0;  ///< the step whose fraction the cell holds
  std::string role{};           ///< the role whose fraction the cell holds
  double counted = 0;           ///< sum of the counted_stat column over that step's records of layer and role
  double values = 0;            ///< sum of `count` over the same records; counted / values is the fraction
};

/// The width of a map's columns in steps (reader::counts_by_layer_and_step):
/// a power of two, columns aligned to multiples of it; 1 keeps every
/// recorded step a column of its own.
struct column_width {
  std::int64_t steps = 1;
};

/// One value of a generic table row: NULL, integer, real, text, decoded
/// histogram counts, or a decoded array of reals (scale_stats.amax_history).
using cell = std::variant<std::monostate, std::int64_t, double, std::string, std::vector<std::uint64_t>,
                          std::vector<double>>;

/// One summary bucket of a layer and role: the steps s with
/// floor(s / summary_bucket_steps) equal (schema version 4's tensor_stats_buckets).
struct stats_bucket {
  std::int64_t first_step = 0;  ///< the first recorded step in the bucket
  std::int64_t last_step = 0;   ///< the last recorded step in the bucket
  std::int64_t steps = 0;       ///< recorded steps in the bucket
  histogram hist{};             ///< the sum of their histograms, binades aligned
};

/// A whole table (or one run's part of it) as rows of cells, for export.
struct table {
  std::vector<std::string> columns{};
  std::vector<std::vector<cell>> rows{};
};

/// Told how far reader::run_outcomes has come: (runs read, runs in the file).
using outcome_progress = std::function<void(std::size_t runs_read, std::size_t runs)>;

/// Read-only access to one run database file.
class reader {
 public:
  /// Opens `file` read-only. Throws not_a_run_database (missing, foreign or
  /// non-SQLite file), newer_schema, or corrupt_database. While `*interrupt`
  /// (when given; it must outlive the reader) is true, every query stops
  /// within a few thousand SQLite instructions and throws rundb::interrupted:
  /// this is how a viewer cancels a query another thread no longer needs.
  explicit reader(const std::filesystem::path& file, const std::atomic<bool>* interrupt = nullptr);
  ~reader();
  reader(reader&&) noexcept;
  reader& operator=(reader&&) noexcept;

  const std::filesystem::path& path() const { return path_; }

  /// All runs, oldest first.
  std::vector<run_info> runs();
  /// One run; throws rundb::error when there is no such id.
  run_info run(run_id id);

  /// Number of stored steps of a run.
  std::int64_t step_count(run_id run);
  /// The step with the largest number, if any.
  std::optional<step_record> last_step(run_id run);
  /// The first and last stored step of a run in `range` (two index seeks);
  /// std::nullopt when it has none there.
  std::optional<step_range> step_extent(run_id run, step_range range = {});
  /// Steps in `range`, ascending. With max_points > 0 and the range's steps
  /// spanning more buckets than that, consecutive steps are merged into
  /// buckets of merged_width(first, last, max_points) steps, aligned to
  /// multiples of it (rundb/merged_steps.hpp): the bucket's first step and
  /// epoch, mean loss / lr / grad_norm, minimum loss scale, skipped if any
  /// step in it was (with one of their reasons), last wall time. Use
  /// skipped_steps() for the exact skipped steps.
  std::vector<step_record> steps(run_id run, step_range range = {}, std::size_t max_points = 0);
  /// The steps in `range` merged into buckets of `width` steps (a power of
  /// two; see rundb/merged_steps.hpp), kept as sums: what a live viewer holds
  /// to merge pairwise later. steps() gives their point()s.
  std::vector<step_bucket> step_buckets(run_id run, step_range range, std::int64_t width);
  /// The skipped steps of a run in `range` (every one by default), ascending.
  std::vector<step_record> skipped_steps(run_id run, step_range range = {});

  /// Tensor statistics matching `query`, ordered by step, then layer order of first appearance.
  std::vector<tensor_stats_record> tensor_stats(const stats_query& query);
  /// The statistics (with histogram) of `layer`/`role` at the largest recorded
  /// step <= `step`; std::nullopt when there is none.
  std::optional<tensor_stats_record> histogram(run_id run, std::string_view layer,
                                               std::string_view role, std::int64_t step);
  /// Steps that have tensor statistics (of `role`, and of `layer`, when
  /// given), ascending. With both given, read from an index alone.
  /// With `steps`, only those in it (a live refresh reads the steps since its last).
  std::vector<std::int64_t> stats_steps(run_id run, std::optional<std::string> role = {},
                                        std::optional<std::string> layer = {}, step_range steps = {});
  /// The summed histograms of `layer`/`role` per summary bucket (those
  /// whose records had histograms), ascending;
  /// std::nullopt for files older than schema version 4 (read tensor_stats
  /// with histograms instead).
  /// With `from_step`, only the buckets from the one holding it on (a live
  /// refresh reads its last, still growing, bucket again and those after).
  std::optional<std::vector<stats_bucket>> histogram_buckets(
      run_id run, std::string_view layer, std::string_view role,
      std::int64_t from_step = std::numeric_limits<std::int64_t>::min());
  /// Layers (sites) with statistics in `table`, in order of first appearance
  /// (first recorded step, then row order within it).
  std::vector<std::string> layers(run_id run, stats_table table = stats_table::tensor_stats);
  /// Roles with statistics in `table` (of `layer`, when given), sorted.
  std::vector<std::string> roles(run_id run, std::optional<std::string> layer = {},
                                 stats_table table = stats_table::tensor_stats);
  /// The fraction `stat` / `count` (elements, for scale_stats) per layer and
  /// step for one role, read from the stat's table (empty for scale_stats in
  /// files older than schema version 3) (every
  /// role when `role` is empty, each cell keeping the worst), ordered by step
  /// then layer. Records of one layer, role and step are summed first. With
  /// max_columns > 0 and more distinct steps than that, consecutive steps are
  /// merged into columns of merged_width(first, last, max_columns) steps,
  /// aligned to multiples of it (rundb/merged_steps.hpp), each keeping its
  /// worst step (max, never mean, so a one-step spike survives any zoom
  /// level); a column's step is its aligned start, but not before the
  /// range's first step (the first recorded one for the whole run). In files
  /// of schema version 4, columns of summary_bucket_steps or more over the
  /// whole run are read from tensor_stats_buckets, with the same worst steps
  /// as the records give.
  /// Aggregated in SQL, no record materialised, one role and one slice of
  /// steps per statement: no read transaction lasts long enough to hold back
  /// a live writer's WAL checkpoints. With `steps` narrower than the whole
  /// run, only the records in it count (read from the records, never the
  /// summaries): what a live map reads for the steps written since.
  std::vector<layer_step_cell> counts_by_layer_and_step(run_id run, std::string_view role, counted_stat stat,
                                                        std::size_t max_columns = 0, step_range steps = {});
  /// counts_by_layer_and_step with columns of a given width (a power of two,
  /// else rundb::error), whatever the range's length: a live map reads the
  /// steps since its last column at the width of the columns it holds.
  std::vector<layer_step_cell> counts_by_layer_and_step(run_id run, std::string_view role, counted_stat stat,
                                                        column_width width, step_range steps = {});
  /// The column width counts_by_layer_and_step(run, role, stat-of-`table`,
  /// max_columns, steps) uses: 1 when the role's distinct steps (summed over
  /// the roles when `role` is empty) number max_columns or fewer, else
  /// merged_width of its first and last recorded step.
  column_width map_column_width(run_id run, std::string_view role, stats_table table, std::size_t max_columns,
                                step_range steps = {});
  /// counts_by_layer_and_step for several stats in one scan of the records:
  /// result i is what the single-stat call with stats[i] returns (each stat
  /// pools its buckets by its own worst step). Throws rundb::error when the
  /// stats come from different tables.
  std::vector<std::vector<layer_step_cell>> counts_by_layer_and_step(run_id run, std::string_view role,
                                                                     std::span<const counted_stat> stats,
                                                                     std::size_t max_columns = 0, step_range steps = {});
  /// The same with columns of a given width.
  std::vector<std::vector<layer_step_cell>> counts_by_layer_and_step(run_id run, std::string_view role,
                                                                     std::span<const counted_stat> stats,
                                                                     column_width width, step_range steps = {});
  /// Totals per layer and role over the run, in the order of layers() (first
  /// appearance), then by role name; the same list, in the same order, from
  /// a version 3 file and its version 4 upgrade (read in short statements,
  /// like counts_by_layer_and_step; from tensor_stats_buckets in files of
  /// schema version 4).
  std::vector<layer_totals> totals_by_layer(run_id run);

  /// Events of a run in `range` (every one by default), by step, then in the order written.
  std::vector<event_record> events(run_id run, step_range range = {});
  /// Evaluations of a run in `range` (every one by default), by step, then in the order written.
  std::vector<evaluation_record> evaluations(run_id run, step_range range = {});
  /// Rows this reader's queries have returned since it was opened (each
  /// SQLite step that produced a row; the checks of the schema on opening
  /// are not counted): what a live viewer's refresh costs, which tests
  /// check grows with the rows appended, not with the run.
  std::uint64_t rows_read() const;
  /// Shadow-mode errors, optionally of one layer only, ordered by step.
  std::vector<shadow_error_record> shadow_errors(run_id run, std::optional<std::string> layer = {});
  /// Scale statistics matching `query`, ordered by step, then insertion.
  /// Empty for files older than schema version 3.
  std::vector<scale_stats_record> scale_stats(const scale_stats_query& query);
  /// Every scale-statistics row of `run` at exactly `step` (with histograms
  /// and histories), in insertion order.
  std::vector<scale_stats_record> scale_stats_at(run_id run, std::int64_t step);
  /// The scale statistics (with block-scale histogram and amax history) of
  /// `layer`/`role` at the largest recorded step <= `step`; std::nullopt when
  /// there is none.
  std::optional<scale_stats_record> scale_histogram(run_id run, std::string_view layer, std::string_view role,
                                                    std::int64_t step);
  /// `run`'s sweep coordinates, sorted by key; empty when the run is not part
  /// of a sweep or the file is older than schema version 3.
  std::vector<coordinate> coordinates(run_id run);
  /// The coordinates of every run that has any, by run id.
  std::map<run_id, std::vector<coordinate>> all_coordinates();

  /// The outcome of every run, oldest first, for comparing a sweep's runs:
  /// read in one statement per table (one ordered scan of the steps, no
  /// query per run), within one read transaction, so 1000 runs read as fast
  /// as one table scan. The loss curve holds what steps(run, {}, max_points)
  /// gives, less the points without a loss: with max_points > 0 and more
  /// steps than that, the mean loss of each bucket of steps(), at the
  /// bucket's first step. `progress`, when given, is called on this thread
  /// as the step scan leaves each run, with the runs read so far (in id
  /// order, those without steps included) and the runs in the file, and once
  /// at the end with both equal: what a viewer shows while a big file loads.
  std::vector<run_outcome> run_outcomes(std::size_t max_points, const outcome_progress& progress = {});
  /// run_outcomes with every loss_curve empty, for comparing outcomes
  /// without drawing them (`numlab inspect --compare`): the steps are counted
  /// in SQL (one grouped statement in primary-key order) instead of streamed
  /// through C++, which makes it faster than run_outcomes by as much as the
  /// curves cost. The other fields are run_outcomes'.
  std::vector<run_outcome> run_outcomes_without_curves();

  /// Parameters of a format: as declared in the file, else numlab's built-in ones.
  std::optional<format_info> format(std::string_view name);

  /// Names of the tables read_table accepts.
  static std::vector<std::string> table_names();
  /// A whole table, or only `run`'s rows; throws rundb::error for an unknown
  /// name. A table the file predates reads as empty, with this version's
  /// columns. Histogram blobs become counts, amax_history blobs reals.
  table read_table(std::string_view name, std::optional<run_id> run = {});

  /// Changes whenever another connection commits; poll it to refresh live views.
  std::int64_t data_version();
  /// Runs SQLite's integrity check; throws corrupt_database on damage.
  void check_integrity();
  /// The file's schema version (PRAGMA user_version).
  int schema_version() const { return version_; }

 private:
  /// True when the file has the tables of schema version 3.
  bool has_v3_tables() const { return version_ >= 3; }
  /// True when the file keeps per-bucket summaries (schema version 4).
  bool has_buckets() const { return version_ >= 4; }
  /// False for scale_stats in files older than schema version 3.
  bool has_table(stats_table table) const;
  /// Every run's outcome but what the steps give (run_outcomes' shared part).
  std::vector<run_outcome> outcomes_but_steps();

  std::filesystem::path path_{};
  std::uint64_t rows_at_open_ = 0;  // rows the schema checks read, left out of rows_read()
  std::unique_ptr<detail::database> db_{};
  int version_ = 0;
};

}  // namespace rundb
