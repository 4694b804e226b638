// Training runs shared by the training experiments (loss-scaling,
// master-weights, stochastic-rounding, amp-mlp, amp-levels): a config built
// from the run options, one trainer run with its steps, per-layer gradient
// census and per-layer swamped updates recorded, and its wall time.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <lab/train_config.hpp>
#include <lab/trainer.hpp>
#include <lab/precision_hook.hpp>

#include "experiment.hpp"
#include "reference.hpp"
#include "scaled_census.hpp"

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

/// The format an op's tensor of one role was held in, the first time the
/// run produced it (the precision policy's decision, as autocast's per op).
struct op_format {
  std::string layer, op;
  lab::op_class op_class = lab::op_class::elementwise;  ///< as the layer declares it
  lab::tensor_role role = lab::tensor_role::activation;
  std::string format;  ///< libnum's short name ("fp16"), or "fp32" where the policy kept fp32
};

/// What one training run produced.
struct training_run {
  std::vector<lab::epoch_report> epochs;
  std::vector<lab::step_info> steps;
  std::vector<std::pair<std::string, gradient_census>> gradients;  ///< by layer, in first-seen order
  std::vector<std::pair<std::string, update_census>> updates;      ///< by layer, in first-seen order
  std::vector<op_format> formats;  ///< activations and gradients, in first-seen order
  /// What a scaled recipe's quantization did to each layer's GEMM operands.
  layer_censuses quantized;
  /// The precision policy's conversion counts at the end of a finished run
  /// (all zero without a policy or when the run stopped).
  lab::precision_tally tally{};
  /// Batch norm's rounded squares (lab::norm_statistics one_pass or stable:
  /// the tensors "squares" of norm layers), and how many were inf after the
  /// policy rounded them (a square past the format's largest value).
  struct norm_squares_census {
    std::uint64_t squares = 0, infinite = 0;
  } norm_squares;
  double seconds = 0;                                              ///< wall time of trainer::run
  std::string failure;  ///< non-empty when training stopped on an exception (its message)

  /// The update census of `layer`; null when the run updated no such layer.
  [[nodiscard]] const update_census* updates_of(std::string_view layer) const;
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

/// The seeds a training experiment trains at: options.seed, options.seed + 1,
/// ... options.seeds of them, or when that is 0, 1 at --full (hours per
/// seed), 2 at --tiny (smoke tests) and 5 otherwise.
std::vector<std::uint64_t> seeds_of(const run_options& options);

/// The same list of runs trained once per seed.
struct seeded_runs {
  std::vector<std::uint64_t> seeds;
  std::vector<named_runs> by_seed;  ///< by_seed[k]: the runs at seeds[k], in the same order and names

  /// The first seed's runs (the ones the per-step tables show).
  [[nodiscard]] const named_runs& first() const { return by_seed.front(); }
  /// Test accuracy of run `index` at every seed (NaN where it stopped).
  [[nodiscard]] std::vector<double> accuracies(std::size_t index) const;
  /// Seeds at which run `index` stopped (diverged).
  [[nodiscard]] std::vector<std::uint64_t> stopped_seeds(std::size_t index) const;
};

/// Calls body(0), ..., body(count - 1), up to `jobs` of them at once on
/// their own threads; rethrows the exception of the lowest index that threw
/// once every call has returned.
void for_each_seed_index(std::size_t count, unsigned jobs, const std::function<void(std::size_t)>& body);

/// Runs `train` with `base` at every seed of seeds_of(options), options.jobs
/// seeds at once (`train` must only read what it shares across seeds). Only
/// the first seed's runs are recorded in the run database (base.trace.db).
template <class Train>
seeded_runs train_seeds(const run_options& options, const lab::train_config& base, Train train) {
  seeded_runs out;
  out.seeds = seeds_of(options);
  out.by_seed.resize(out.seeds.size());
  for_each_seed_index(out.seeds.size(), options.jobs, [&](std::size_t k) {
    lab::train_config c = base;
    c.seed = out.seeds[k];
    if (k != 0) c.trace.db.clear();
    out.by_seed[k] = train(c);
  });
  return out;
}

/// Trains several models at every seed of seeds_of(options): `configure(m)`
/// is model m's configuration (its data is loaded once, from the first
/// call), and `train(runs, config, data, m)` appends model m's runs at one
/// seed. Only the first seed's runs are recorded (train_seeds).
template <class Model, std::size_t N, class Configure, class Train>
seeded_runs train_models_at_seeds(const run_options& options, const std::array<Model, N>& models,
                                  Configure configure, Train train) {
  std::vector<lab::train_data> data;
  for (const Model& m : models) data.push_back(lab::load_data(configure(m)));
  return train_seeds(options, configure(models[0]), [&](const lab::train_config& seeded) {
    named_runs runs;
    for (std::size_t k = 0; k < N; ++k) {
      lab::train_config c = configure(models[k]);
      c.seed = seeded.seed;
      c.trace.db = seeded.trace.db;
      train(runs, c, data[k], models[k]);
    }
    return runs;
  });
}

/// Test accuracy of run `index` over the seeds at which it finished:
/// "80.00 ± 1.20% (5 seeds)", "81.00% (1 seed)" or "stopped at every seed".
std::string accuracy_summary(const seeded_runs& runs, std::size_t index);

/// One row per run: seeds, how many stopped, and test accuracy in percent
/// over the seeds that finished (mean, sample sd, min, max, then by seed).
table accuracy_over_seeds_table(const std::string& id, const seeded_runs& runs);

/// Which way a claim about two runs' test accuracies goes.
enum class accuracy_claim {
  lower,   ///< a scores lower than b
  higher,  ///< a scores higher than b
  within,  ///< a scores within ± margin of b
};

/// Decides `c` on the test accuracies of runs `a` and `b` at every seed,
/// paired by seed: "lower" holds when the 95% interval of the mean
/// difference a - b lies below 0, "higher" above 0, "within" inside
/// [-margin, margin]. Not decided when a run stopped at some seed (a
/// diverged run is never scored) or with one seed (no estimate of seed noise).
reference_check compare_accuracies(const claim& c, const seeded_runs& runs, std::size_t a, std::size_t b,
                                   accuracy_claim direction, double margin = 0);

/// Decides `c`, "run a takes at most `bound` times run b's wall time", on
/// every seed's pair of runs: it holds only when the ratio is within the
/// bound at every seed. numlab's column reads "1.68x fp32's time at seed 1;
/// 1.60x to 1.75x fp32's time over 5 seeds".
reference_check check_time_ratio(const claim& c, const seeded_runs& runs, std::size_t a, std::size_t b,
                                 double bound);

/// Decides `c`, "run a's gradient operand has a smaller magnitude bias
/// (scaled_census, census_measure::bias) than run b's at every layer", on
/// every seed: per layer, |bias a| - |bias b| paired by seed, and it holds
/// when every layer's 95% interval of the mean difference lies below 0. Not
/// decided with one seed (no estimate of seed noise) or where a run stopped
/// (a diverged run's census covers only the steps it took). numlab's column
/// gives each layer's biases at the first seed and the interval.
reference_check compare_gradient_bias(const claim& c, const seeded_runs& runs, std::size_t a, std::size_t b);

/// Trains `config` on `data` with a tracer chained after the precision
/// policy that fills the censuses, and appends the result to `runs` as
/// `name`. Exceptions from training are caught and kept in `failure` (so a
/// diverging fp16 run is a result, not an abort); a run whose last epoch
/// ends with a non-finite training or test loss is recorded as diverged the
/// same way. When config.trace.db is
/// set (sized_config takes it from run_options::run_database) the run is
/// also recorded there under `name`: every step, and tensor statistics with
/// histograms at about 100 evenly spaced steps.
void train_into(named_runs& runs, std::string name, const lab::train_config& config, const lab::train_data& data);

/// `preset` plus refinements, e.g. with_precision(c, "fp16-mixed", {{"loss_scaling", "static"}}).
lab::train_config with_precision(lab::train_config config, const std::string& preset,
                                 const std::vector<std::pair<std::string, std::string>>& refinements = {});

/// part / whole as a percentage with `decimals` digits, without a unit
/// (columns say "(%)"; "0.00" when whole is 0).
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
/// scale changed or the update was skipped (the first `limit` of them; the
/// title says how many there were), and the last step.
table trajectory_table(const std::string& id, const training_run& run, std::size_t limit);

/// The Graphcore tutorial's training settings for its conv model
/// (conv3x3x32 - relu - conv3x3x32 - dense10): batch 32, Adam lr 0.01, eps 1e-4.
lab::train_config tutorial_conv_config(const run_options& options, const training_sizes& sizes);

/// The censuses of all layers added up.
gradient_census total_gradients(const training_run& run);
update_census total_updates(const training_run& run);

}  // namespace numlab::experiments
