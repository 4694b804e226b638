// The plain records stored in a run database. They mirror the tables of
// rundb/SCHEMA.md one to one and carry no dependency on libnum or the trainer,
// so the tracer, `numlab inspect` and the GUI all speak the same types.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rundb {

/// Identifies a run inside one database file (the `runs.id` column).
using run_id = std::int64_t;

/// How a run ended, or `running` while it is (or was, until a crash) training.
/// `diverged` is a run whose loss became NaN or infinite (schema version 2
/// on); `failed` one stopped by an error; `killed` one whose process died
/// mid-run (SIGKILL, the OOM killer, a time limit), recorded by whoever knows
/// it died — `numlab merge` for a sweep point whose lock is free — since the
/// dead process could not (schema version 5 on).
enum class run_status { running, finished, failed, trapped, interrupted, diverged, killed };

/// The spelling stored in `runs.status`.
std::string_view to_string(run_status status);
/// Parses a stored status; std::nullopt for an unknown spelling.
std::optional<run_status> parse_run_status(std::string_view text);

/// What kind of thing an event reports.
enum class event_kind { overflow, nan, skipped, trap, warning };

/// The spelling stored in `events.kind`.
std::string_view to_string(event_kind kind);
/// Parses a stored event kind; std::nullopt for an unknown spelling.
std::optional<event_kind> parse_event_kind(std::string_view text);

/// One training run: written once by begin_run, status updated by finish_run.
struct run_info {
  run_id id = 0;                ///< assigned by the database; ignored by begin_run
  std::string name{};             ///< human-readable run name
  std::string start_time{};       ///< ISO 8601 UTC; begin_run fills it in when empty
  std::string config_yaml{};      ///< the full resolved configuration
  std::string numlab_version{};   ///< version of the program that trained
  std::string host{};             ///< machine name; begin_run fills it in when empty
  run_status status = run_status::running;
  std::string end_time{};         ///< ISO 8601 UTC, set by finish_run; empty while running
};

/// Per-step scalars. Optional fields are stored as SQL NULL when absent.
struct step_record {
  run_id run = 0;
  std::int64_t step = 0;
  std::int64_t epoch = 0;
  std::optional<double> loss{};
  std::optional<double> loss_scale{};
  bool skipped = false;
  std::string skip_reason{};      ///< why the step was skipped (e.g. "inf in grad"); empty if not
  std::optional<double> lr{};
  std::optional<double> grad_norm{};
  std::optional<double> wall_time{};  ///< seconds since the run started
};

/// A log2-magnitude histogram of one tensor.
///
/// Layout of `bins` (n = bins.size() >= 2):
///   bins[0]       nonzero values that underflowed to zero,
///   bins[1+i]     values with floor(log2|x|) == first_exponent + i, for
///                 i in [0, n-2) (subnormal binades first, then normal ones),
///   bins[n-1]     values that overflowed (to inf, saturated or NaN-on-overflow).
/// Exact zeros are counted in tensor_stats_record::zeros, not here.
/// An empty `bins` means no histogram was recorded.
struct histogram {
  std::int32_t first_exponent = 0;
  std::vector<std::uint64_t> bins{};

  /// Number of binade bins (excluding the underflow and overflow bins).
  std::size_t binade_count() const { return bins.size() < 2 ? 0 : bins.size() - 2; }
};

/// Statistics of one tensor at one site (layer/op) and role at one step.
struct tensor_stats_record {
  run_id run = 0;
  std::int64_t step = 0;
  std::string layer{};    ///< the site: layer name (e.g. "conv1")
  std::string op{};       ///< the op at that site (e.g. "conv2d", "sgd_update")
  std::string role{};     ///< activation, grad_input, grad_weight, weight, master_weight, update
  std::string format{};   ///< storage format name (e.g. "binary16")
  std::uint64_t count = 0;
  std::uint64_t zeros = 0;
  std::uint64_t subnormals = 0;
  std::uint64_t underflows = 0;
  std::uint64_t overflows = 0;
  std::uint64_t nans = 0;
  std::uint64_t infs = 0;
  double min_abs = 0;
  double min_nonzero_abs = 0;
  double max_abs = 0;
  double mean = 0;
  double rms = 0;
  std::uint64_t swamped = 0;            ///< updates with δ != 0 and w + δ == w
  std::uint64_t partially_swamped = 0;  ///< updates whose effect differs from δ beyond tolerance
  histogram hist{};
  /// Updates only: log2 histogram of |δ| / ulp(w) per element. Same layout as
  /// `hist`, except that bins[0] counts ratios below 2^first_exponent
  /// (δ == 0 included) and the last bin ratios above the last binade. Ratios
  /// below 1/2 are swamped entirely under round-to-nearest. Empty if not recorded.
  histogram ulp_ratio{};
};

/// Something noteworthy that happened during a run.
struct event_record {
  run_id run = 0;
  std::int64_t step = 0;
  event_kind kind = event_kind::warning;
  std::string layer{};    ///< empty when the event is not tied to a layer
  std::string message{};  ///< e.g. a trap report
};

/// One evaluation on held-out data.
struct evaluation_record {
  run_id run = 0;
  std::int64_t epoch = 0;
  std::int64_t step = 0;
  /// NaN when the evaluation loss was not finite-or-infinite but NaN (a
  /// diverged run): stored as SQL NULL (schema version 3 on), read back as a
  /// quiet NaN. Infinities are stored as themselves.
  double loss = 0;
  std::optional<double> accuracy{};
};

/// Where a run sits in a sweep grid: one swept configuration key and the
/// value the sweep gave it, as the sweep spec writes it (schema version 3 on).
struct coordinate {
  std::string key{};    ///< the config key swept: "precision", "rounding.update", "seed", ...
  std::string value{};  ///< its value as text: "fp16-mixed", "sr", "3", ...
  friend bool operator==(const coordinate&, const coordinate&) = default;
};

/// One point of a run's training loss curve.
struct loss_point {
  std::int64_t step = 0;
  double loss = 0;
  friend bool operator==(const loss_point&, const loss_point&) = default;
};

/// What comparing the runs of a sweep needs of one run: where it sits in the
/// grid, how it ended, its (decimated) loss curve and its trouble counts
/// (reader::run_outcomes).
struct run_outcome {
  run_info run{};
  std::vector<coordinate> coordinates{};  ///< sorted by key; empty outside a sweep
  std::vector<loss_point> loss_curve{};   ///< ascending steps, recorded losses only
  std::optional<double> final_loss{};     ///< loss of the run's last step; empty when it recorded none
  std::optional<double> final_accuracy{}; ///< accuracy of the last evaluation that recorded one
  std::int64_t steps = 0;                 ///< stored steps
  std::int64_t skipped_steps = 0;         ///< stored steps marked skipped
  std::int64_t overflow_events = 0;       ///< events of kind overflow
  std::int64_t nan_events = 0;            ///< events of kind nan
};

/// What a scaled-format recipe (block or per-tensor scaling) did to one
/// tensor at one step (table scale_stats, schema version 3 on). The counts
/// mean what libnum's num::scaled_counts fields of the same names mean.
struct scale_stats_record {
  run_id run = 0;
  std::int64_t step = 0;
  std::string layer{};          ///< the site, as tensor_stats_record::layer
  std::string op{};             ///< the GEMM operand / op, as tensor_stats_record::op
  std::string role{};           ///< activation, weight, gradient, ... as tensor_stats_record::role
  std::string scaled_format{};  ///< num::scaled_format_name: "mxfp8", "nvfp4", "e4m3/fp32-given/tensor", ...
  std::uint64_t count = 0;      ///< elements
  std::uint64_t blocks = 0;     ///< scale blocks
  std::optional<double> amax{};   ///< largest finite |x| of the tensor at this step
  std::optional<double> scale{};  ///< per-tensor decode scale used; empty for pure block formats
  std::vector<double> amax_history{};  ///< most recent first; empty when none is kept
  std::uint64_t block_underflow = 0;
  std::uint64_t underflow_to_zero = 0;
  std::uint64_t saturated = 0;
  std::uint64_t scale_underflow = 0;
  std::uint64_t scale_overflow = 0;
  /// 10 log10(sum x^2 / sum (x - dequantized)^2); empty when there was no
  /// error or no element.
  std::optional<double> snr_db{};
  /// Histogram of floor(log2(block decode scale)) over the tensor's blocks, in
  /// the layout of `histogram` (bins[0]: scales below the first binade, last
  /// bin: above the last one). Empty when not recorded.
  histogram scale_hist{};
};

/// Relative error of a low-precision tensor against its fp64/fp32 shadow.
struct shadow_error_record {
  run_id run = 0;
  std::int64_t step = 0;
  std::string layer{};
  std::string role{};
  double rel_error = 0;
};

/// Parameters of a floating-point format, so readers can shade its ranges
/// without knowing libnum. Stored once per name (the last declaration wins).
struct format_info {
  std::string name{};
  int precision = 0;  ///< significand bits including the hidden bit
  int emin = 0;       ///< exponent of the smallest normal number
  int emax = 0;       ///< exponent of the largest finite number
  bool subnormals = true;
  bool infinities = true;

  /// Exponent of the smallest subnormal (or of the smallest normal without subnormals).
  int min_exponent() const { return subnormals ? emin - precision + 1 : emin; }
};

/// Parameters of a format libnum builds in, by its short name (the one the
/// trainer writes: "fp16", "bf16", "e5m2", "e4m3", "tf32", "fp32") or its long
/// name ("binary16", "bfloat16", "binary32"), used when a database does not
/// declare the format; nullopt for any other name.
std::optional<format_info> builtin_format(std::string_view name);

}  // namespace rundb
