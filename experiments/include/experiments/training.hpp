// Training runs shared by the training experiments (loss-scaling,
// master-weights, stochastic-rounding, amp-mlp, amp-levels): a config built
// from the run options, one trainer run with its steps, per-layer gradient
// census and per-layer swamped updates recorded, and its wall time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <lab/train_config.hpp>
#include <lab/trainer.hpp>

#include "experiment.hpp"

namespace numlab::experiments {

/// Sizes of a training experiment at the three run sizes.
struct training_sizes {
  std::size_t train_limit = 0, test_limit = 0, epochs = 1;  ///< 0 limit: the whole split
};

/// The sizes `options` asks for: tiny, full or default.
training_sizes pick_sizes(const run_options& options, training_sizes tiny, training_sizes default_size,
                          training_sizes full);

/// "train N images (of 60000) , test M, E epochs" for a settings line.
std::string describe_sizes(const training_sizes& sizes, const std::string& data);

/// A config with `sizes`, the options' seed, one BLAS thread (so results
/// do not depend on the machine's core count) and the options' run database.
lab::train_config sized_config(const run_options& options, const training_sizes& sizes);

/// Per-layer counts of gradient values (roles grad_weight and grad_input)
/// as the run's precision policy stored them; under a policy only the
/// gradients it holds in a low format, in fp32 runs all of them.
struct gradient_census {
  std::uint64_t elements = 0;
  std::uint64_t zeros = 0;             ///< values that are exactly ±0 after rounding
  std::uint64_t underflow_to_zero = 0; ///< nonzero before rounding, ±0 after (libnum's conversion counts)
  std::uint64_t subnormal = 0;         ///< nonzero fp16 subnormals after rounding (0 < |x| < 2^-14)
};

/// Per-layer counts of weight updates w <- w + delta.
struct update_census {
  std::uint64_t nonzero_delta = 0;
  std::uint64_t swamped = 0;  ///< delta != 0 but the stored weight did not change
};

/// What one training run produced.
struct training_run {
  std::vector<lab::epoch_report> epochs;
  std::vector<lab::step_info> steps;
  std::vector<std::pair<std::string, gradient_census>> gradients;  ///< by layer, in first-seen order
  std::vector<std::pair<std::string, update_census>> updates;      ///< by layer, in first-seen order
  double seconds = 0;                                              ///< wall time of trainer::run
  std::string failure;  ///< non-empty when training stopped on an exception (its message)

  /// Number of skipped steps.
  [[nodiscard]] std::size_t skipped_steps() const;
  /// True when training stopped on an exception (a diverged run): such a
  /// run is reported as stopped, never scored.
  [[nodiscard]] bool stopped() const { return !failure.empty(); }
  /// Test accuracy after the last epoch; NaN when the run stopped or
  /// finished no epoch, so that no comparison can pass on it.
  [[nodiscard]] double final_accuracy() const;
};

/// Training runs by name, in the order they were trained.
using named_runs = std::vector<std::pair<std::string, training_run>>;

/// Trains `config` on `data` with a tracer chained after the precision
/// policy that fills the censuses, and appends the result to `runs` as
/// `name`. Exceptions from training are caught and kept in `failure` (so a
/// diverging fp16 run is a result, not an abort). When config.trace.db is
/// set (sized_config takes it from run_options::run_database) the run is
/// also recorded there under `name`: every step, and tensor statistics with
/// histograms at about 100 evenly spaced steps.
void train_into(named_runs& runs, std::string name, const lab::train_config& config, const lab::train_data& data);

/// `preset` plus refinements, e.g. with_precision(c, "fp16-mixed", {{"loss_scaling", "static"}}).
lab::train_config with_precision(lab::train_config config, const std::string& preset,
                                 const std::vector<std::pair<std::string, std::string>>& refinements = {});

/// part / whole as a percentage with `decimals` digits ("0.00%" when whole is 0).
std::string percent_of(std::uint64_t part, std::uint64_t whole, int decimals = 2);

/// The loss cell of a table: 4 decimals, or "nan"/"inf" as they are.
std::string loss_cell(double loss);

/// One row per epoch and one column per run: average training loss.
table loss_per_epoch_table(const std::string& id, const std::string& title,
                           std::span<const std::pair<std::string, training_run>> runs);

/// One row per run: final test accuracy, skipped steps, wall time, failure.
table outcome_table(const std::string& id, const std::string& title,
                    std::span<const std::pair<std::string, training_run>> runs);

/// The loss-scale trajectory of a run: the first step, every step where the
/// scale changed or the update was skipped (at most `limit` of them), and
/// the last step.
table trajectory_table(const std::string& id, const training_run& run, std::size_t limit);

/// The Graphcore tutorial's training settings for its conv model
/// (conv3x3x32 - relu - conv3x3x32 - dense10): batch 32, Adam lr 0.01, eps 1e-4.
lab::train_config tutorial_conv_config(const run_options& options, const training_sizes& sizes);

/// The censuses of all layers added up.
gradient_census total_gradients(const training_run& run);
update_census total_updates(const training_run& run);

}  // namespace numlab::experiments
