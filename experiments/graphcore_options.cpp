// graphcore-options: the remaining Graphcore claims. The CNN README's
// precision options 16.16 / 16.32 / 32.32 ((compute).(weight update)) and its
// stochastic-rounding switch, and the fp16 tutorial's advice to prefer
// momentum over plain SGD under stochastic rounding, each on the tutorial
// conv model and ResNet-8; and the tutorial's stable normalisation
// statistics (use_stable_statistics, the README's --stable-norm: subtract
// the mean before the variance), trained on ResNet-8 under 16.16 both ways
// and shown on the variance of one batch-norm channel computed in fp16.
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <lab/rng.hpp>
#include <libnum/small_float.hpp>

#include "experiments/experiment.hpp"
#include "experiments/printing.hpp"
#include "experiments/reference.hpp"
#include "experiments/training.hpp"

namespace numlab::experiments {
namespace {

constexpr const char* readme = "Graphcore CNN training README (train.py options)";
constexpr const char* tutorial = "Graphcore TF1 fp16 tutorial";

/// The runs of one model, in the order train_model appends them.
enum run_index : std::size_t {
  fp32_run,          // 32.32
  mixed_run,         // 16.32
  pure_run,          // 16.16, nearest-even
  pure_sr_run,       // 16.16, stochastic rounding, momentum 0.9
  plain_sr_run,      // 16.16, stochastic rounding, plain SGD at the same lr
  plain_sr_fast_run, // 16.16, stochastic rounding, plain SGD at lr / (1 - momentum)
  runs_per_model
};

/// The runs only a model with batch norm adds, after its runs_per_model.
enum norm_run_index : std::size_t {
  one_pass_norm_run,  // 16.16, batch-norm statistics in one pass (--stable-norm False)
  stable_norm_run,    // 16.16, the mean subtracted first (--stable-norm True)
};

constexpr double learning_rate = 0.01;
constexpr double momentum = 0.9;

struct model_choice {
  const char* label;  ///< prefix of every run's name
  const char* model;
  std::size_t depth;
};
constexpr std::array<model_choice, 2> models{{{"conv", "tutorial_conv", 0}, {"ResNet-8", "resnet", 8}}};

lab::train_config model_config(const run_options& options, const training_sizes& sizes, const model_choice& m) {
  lab::train_config c = sized_config(options, sizes);
  c.model = m.model;
  if (m.depth != 0) c.depth = m.depth;
  c.batch_size = 32;
  c.optimizer = "sgd";
  c.lr = learning_rate;
  c.momentum = momentum;
  return c;
}

/// Appends the six runs of one model to `runs`, and for a model with batch
/// norm the two runs of its statistics options.
void train_model(named_runs& runs, const lab::train_config& base, const lab::train_data& data,
                 const std::string& label, bool batch_norm) {
  // stochastic_rounding.py's scaling: gradients stay scaled by 256 and the
  // learning rate is divided by it (linear optimizers only).
  const std::vector<std::pair<std::string, std::string>> scaled{
      {"loss_scaling", "static"}, {"loss_scale", "256"}, {"loss_scale_method", "divide_lr"}};
  auto stochastic = scaled;
  stochastic.emplace_back("rounding", "sr");
  lab::train_config plain = base;
  plain.momentum = 0.0;
  lab::train_config plain_fast = plain;
  // lr / (1 - momentum) formed in fp32 (0.0999999717f, not 0.1), as the
  // committed results were trained; SGD converts lr to fp32 anyway.
  plain_fast.lr = static_cast<float>(learning_rate) / (1.0f - static_cast<float>(momentum));
  train_into(runs, label + " 32.32 (fp32)", with_precision(base, "fp32"), data);
  train_into(runs, label + " 16.32 (fp16 compute, fp32 weight update)", with_precision(base, "fp16-mixed", scaled),
             data);
  train_into(runs, label + " 16.16 (fp16 compute and update, nearest-even)", with_precision(base, "fp16", scaled),
             data);
  train_into(runs, label + " 16.16 + SR, momentum 0.9", with_precision(base, "fp16", stochastic), data);
  train_into(runs, label + " 16.16 + SR, plain SGD, same lr", with_precision(plain, "fp16", stochastic), data);
  train_into(runs, label + " 16.16 + SR, plain SGD, lr / (1 - momentum)", with_precision(plain_fast, "fp16", stochastic),
             data);
  if (!batch_norm) return;
  lab::train_config one_pass = base, stable = base;
  one_pass.norm_statistics = "one_pass";
  stable.norm_statistics = "stable";
  train_into(runs, label + " 16.16, batch-norm statistics in one pass (--stable-norm False)",
             with_precision(one_pass, "fp16", scaled), data);
  train_into(runs, label + " 16.16, batch-norm mean subtracted first (--stable-norm True)",
             with_precision(stable, "fp16", scaled), data);
}

/// One row per layer of one model: the swamped fraction of each
/// stochastic-rounding run (and nearest-even's, for scale).
table swamping_table(const named_runs& runs, std::size_t first, const std::string& id, const std::string& label) {
  const std::array<std::size_t, 4> shown_runs{pure_run, pure_sr_run, plain_sr_run, plain_sr_fast_run};
  std::vector<std::string> columns{"layer"};
  for (const std::size_t i : shown_runs) columns.push_back(runs[first + i].first + " swamped (%)");
  table t(id, label + ": weight updates with delta != 0 that left the stored fp16 weight unchanged, all steps",
          columns);
  for (const auto& [layer, unused] : runs[first + pure_run].second.updates) {
    std::vector<std::string> row{layer};
    for (const std::size_t i : shown_runs) {
      const update_census* c = runs[first + i].second.updates_of(layer);
      row.push_back(c == nullptr ? "-" : percent_of(c->swamped, c->nonzero_delta));
    }
    t.add_row(std::move(row));
  }
  return t;
}

// --- stable statistics -----------------------------------------------------

using half = num::small_float<num::binary16>;

/// One batch-norm channel of ResNet-8's first stage at batch 32 on 28x28
/// images: 32 * 28 * 28 values.
constexpr std::size_t channel_values = 32 * 28 * 28;

/// The variance of one channel three ways.
struct variance_row {
  double offset = 0;
  double exact = 0;   ///< two passes in double over the fp16 values
  double naive = 0;   ///< E[x^2] - E[x]^2: squares rounded to fp16, sums in fp32
  double stable = 0;  ///< E[(x - mean)^2]: x - mean and its square rounded to fp16, sums in fp32
};

/// Values offset + N(0, 1), rounded to fp16 as an fp16 activation is, and
/// their variance computed as the two normalisation options do. The
/// squares are formed in fp16 (where they overflow past 65504) and summed
/// in fp32, as the tutorial says the IPU's normalisation sub-steps are.
variance_row channel_variance(double offset, std::uint64_t seed) {
  lab::rng gen(seed, static_cast<std::uint64_t>(offset));
  std::vector<half> x;
  x.reserve(channel_values);
  for (std::size_t i = 0; i < channel_values; ++i) x.emplace_back(offset + static_cast<double>(gen.normal()));
  const auto n = static_cast<double>(channel_values);
  variance_row row;
  row.offset = offset;
  double exact_mean = 0;
  for (const half v : x) exact_mean += static_cast<double>(v);
  exact_mean /= n;
  for (const half v : x) row.exact += (static_cast<double>(v) - exact_mean) * (static_cast<double>(v) - exact_mean);
  row.exact /= n;
  float sum = 0.0f, sum_squares = 0.0f;
  for (const half v : x) {
    sum += static_cast<float>(v);
    sum_squares += static_cast<float>(v * v);
  }
  const float mean = sum / static_cast<float>(n);
  row.naive = static_cast<double>(sum_squares / static_cast<float>(n) - mean * mean);
  const half mean16(mean);
  float deviations = 0.0f;
  for (const half v : x) {
    const half d = v - mean16;
    deviations += static_cast<float>(d * d);
  }
  row.stable = static_cast<double>(deviations / static_cast<float>(n));
  return row;
}

std::string variance_cell(double v) { return std::isfinite(v) ? significant(v, 6) : fixed(v, 0); }

std::string error_cell(double v, double exact) {
  return std::isfinite(v) ? fixed(100.0 * std::fabs(v - exact) / exact, 3) : "-";
}

constexpr std::array<double, 5> offsets{0.0, 16.0, 64.0, 200.0, 300.0};

table variance_table(const std::vector<variance_row>& rows) {
  table t("stable-statistics",
          "Variance of one batch-norm channel (" + std::to_string(channel_values) +
              " fp16 values, offset + N(0, 1)): plain E[x^2] - E[x]^2 vs mean subtracted first",
          {"mean offset", "exact variance", "E[x^2] - E[x]^2", "E[x^2] - E[x]^2 error (%)", "E[(x - mean)^2]",
           "E[(x - mean)^2] error (%)"});
  for (const variance_row& r : rows)
    t.add_row({fixed(r.offset, 0), significant(r.exact, 6), variance_cell(r.naive), error_cell(r.naive, r.exact),
               variance_cell(r.stable), error_cell(r.stable, r.exact)});
  return t;
}

reference_check stable_statistics_check(const std::vector<variance_row>& rows) {
  const variance_row& worst = rows.back();  // the offset whose squares pass fp16's 65504
  const bool naive_overflows = !std::isfinite(worst.naive);
  const bool stable_close = std::isfinite(worst.stable) && std::fabs(worst.stable - worst.exact) <= 0.01 * worst.exact;
  return check_claim(
      {"variance of a channel with mean offset " + fixed(worst.offset, 0) + " (squares above 65504) in fp16",
       tutorial + std::string(" (Avoiding numerical issues)"),
       "Sometimes, overflows can occur in the calculation of the variance in a normalisation layer. To avoid this, "
       "the mean of the values to be normalised can be subtracted from each value before the variance is "
       "calculated.",
       "E[x^2] - E[x]^2 is not finite and E[(x - mean)^2] is within 1% of the exact variance",
       "the plain variance did not overflow, or the mean-subtracted one was not close"},
      "E[x^2] - E[x]^2 = " + variance_cell(worst.naive) + ", E[(x - mean)^2] = " + variance_cell(worst.stable) +
          ", exact " + significant(worst.exact, 6),
      naive_overflows && stable_close);
}

/// The stable-statistics claim on the trained model: how many batch-norm
/// squares were inf after the fp16 rounding, in the one-pass runs and in
/// the mean-subtracted ones, over every seed.
reference_check trained_norm_check(const seeded_runs& seeded, std::size_t one_pass, std::size_t stable,
                                   const std::string& label) {
  training_run::norm_squares_census one{}, mean_first{};
  for (const named_runs& runs : seeded.by_seed) {
    one.squares += runs[one_pass].second.norm_squares.squares;
    one.infinite += runs[one_pass].second.norm_squares.infinite;
    mean_first.squares += runs[stable].second.norm_squares.squares;
    mean_first.infinite += runs[stable].second.norm_squares.infinite;
  }
  const auto counted = [](const training_run::norm_squares_census& c) {
    return std::to_string(c.infinite) + " of " + std::to_string(c.squares);
  };
  return check_claim(
      {label + " 16.16: batch-norm squares that overflowed fp16 (inf), one pass vs mean subtracted first, " +
           std::to_string(seeded.seeds.size()) + " seed(s)",
       tutorial + std::string(" (Avoiding numerical issues)"),
       "Sometimes, overflows can occur in the calculation of the variance in a normalisation layer. To avoid this, "
       "the mean of the values to be normalised can be subtracted from each value before the variance is "
       "calculated.",
       "inf squares in the one-pass runs and none in the mean-subtracted runs",
       "no square overflowed in the one-pass runs (every batch-norm input stayed below 256 in magnitude), or the "
       "mean-subtracted runs overflowed too"},
      "squares inf: one pass " + counted(one) + ", mean subtracted first " + counted(mean_first),
      one.infinite > 0 && mean_first.infinite == 0);
}

// --- the run -----------------------------------------------------------------

/// Where the per-model tables and checks come from.
struct model_block {
  const model_choice* m;
  std::size_t first;  ///< index of its fp32 run in a seed's runs
};

void add_model_checks(experiment_result& r, const seeded_runs& seeded, const model_block& b) {
  const std::string label = b.m->label;
  const auto at = [&](run_index i) { return b.first + i; };
  r.checks.push_back(compare_accuracies(
      {label + ": test accuracy, 16.16 (nearest-even) vs 16.32", tutorial + std::string(" (Swamping)"),
       "This can lead to inaccuracies as described in the previous section, which can lead to poorer results.",
       "95% interval of the mean paired difference (by seed) below 0",
       "fp16 weight updates are not shown to score lower than fp32 weight updates at these sizes"},
      seeded, at(pure_run), at(mixed_run), accuracy_claim::lower));
  r.checks.push_back(compare_accuracies(
      {label + ": test accuracy, 16.16 with stochastic rounding vs 32.32", tutorial + std::string(" (Method 1)"),
       "on average, the values of the parameters of a network will be close to the values they would have had if "
       "a higher-precision format had been used",
       "95% interval of the mean paired difference (by seed) within [-2, 2] points (accuracy as the proxy)",
       "stochastic rounding in fp16 is not shown to come within 2 points of fp32 at these sizes"},
      seeded, at(pure_sr_run), at(fp32_run), accuracy_claim::within, 0.02));
  const std::string sgd_claim =
      "There is empirical evidence that stochastic gradient descent with momentum is more effective than plain "
      "SGD when training in FP16 with stochastic rounding.";
  r.checks.push_back(compare_accuracies(
      {label + ": test accuracy under SR, momentum 0.9 vs plain SGD at the same lr",
       tutorial + std::string(" (Avoiding numerical issues)"), sgd_claim,
       "95% interval of the mean paired difference (by seed) above 0",
       "momentum is not shown to score higher than plain SGD at the same learning rate"},
      seeded, at(pure_sr_run), at(plain_sr_run), accuracy_claim::higher));
  r.checks.push_back(compare_accuracies(
      {label + ": test accuracy under SR, momentum 0.9 vs plain SGD at lr / (1 - momentum) (the same step size "
               "in the long run)",
       tutorial + std::string(" (Avoiding numerical issues)"), sgd_claim,
       "95% interval of the mean paired difference (by seed) above 0",
       "at an equal effective step size, momentum is not shown to score higher than plain SGD"},
      seeded, at(pure_sr_run), at(plain_sr_fast_run), accuracy_claim::higher));
}

std::string swamped_finding(const named_runs& runs, const model_block& b) {
  const auto fraction = [&](run_index i) {
    const update_census u = total_updates(runs[b.first + i].second);
    return percent_of(u.swamped, u.nonzero_delta);
  };
  return std::string(b.m->label) + " (first seed): nonzero updates that left the fp16 weight unchanged: " +
         fraction(pure_run) + "% nearest-even, " + fraction(pure_sr_run) + "% SR with momentum, " +
         fraction(plain_sr_run) + "% SR plain SGD, " + fraction(plain_sr_fast_run) + "% SR plain SGD at lr x10.";
}

experiment_result run(const run_options& options) {
  const training_sizes sizes = pick_sizes(options, {32, 32, 1}, {320, 320, 2}, {0, 0, 5});
  const seeded_runs seeded = train_models_at_seeds(
      options, models, [&](const model_choice& m) { return model_config(options, sizes, m); },
      [](named_runs& runs, const lab::train_config& c, const lab::train_data& data, const model_choice& m) {
        train_model(runs, c, data, m.label, m.depth != 0);
      });
  const named_runs& runs = seeded.first();
  const std::string first_seed = " (seed " + std::to_string(seeded.seeds.front()) + ")";
  const std::array<model_block, 2> blocks{{{&models[0], 0}, {&models[1], runs_per_model}}};

  experiment_result r;
  r.settings = {
      describe_sizes(sizes, "Fashion-MNIST (first images of each split)") +
          (options.full ? "" : "; --full: all 60000/10000 images, 5 epochs"),
      "the README trains ResNet-8 on CIFAR-10, which Debian does not package and this machine cannot download; "
      "Fashion-MNIST stands in, so accuracies are not comparable with CIFAR-10's",
      "models: the tutorial conv (conv3x3x32 - relu - conv3x3x32 - dense10) and ResNet-8 (6N+2, N = 1, batch "
      "norm); batch 32 (the README's example), SGD with momentum 0.9 at lr 0.01 (the README's optimizer is SGD; its "
      "default momentum 0 and lr 1e-4 do not train in two short epochs), one BLAS thread; every run at " +
          std::to_string(seeded.seeds.size()) + " seed(s), the per-layer tables at the first",
      "--precision A.B: A = compute (conv/dense inputs, weights and outputs rounded to fp16), B = weight update "
      "(16: weights, momentum and w + delta stored in fp16; 32: fp32 master weights); fp16 runs keep gradients "
      "scaled by 256 and divide the learning rate by it, as stochastic_rounding.py does; SR = "
      "--stochastic-rounding True (every fp16 rounding stochastic, Philox streams keyed by seed, step and tensor)",
      "plain SGD is compared at the same lr and at lr / (1 - momentum) = 0.1, where its steady-state step equals "
      "momentum's",
      "stable statistics (--stable-norm, use_stable_statistics): numlab's batch norm computes its statistics in "
      "double with the mean subtracted first (the 16.16 run above); two more ResNet-8 runs at 16.16 compute them as "
      "the IPU's two options do (norm_statistics one_pass: every square x * x rounded to fp16, sums in fp32, "
      "E[x^2] - E[x]^2; stable: the fp16-rounded mean subtracted first, deviations and squares rounded to fp16); "
      "the tutorial conv has no normalisation layer; the variance table shows one channel computed both ways"};
  r.tables.push_back(accuracy_over_seeds_table("accuracy-over-seeds", seeded));
  r.tables.push_back(outcome_table("accuracy", "Test accuracy after the last epoch" + first_seed, runs));
  r.tables.push_back(swamping_table(runs, blocks[0].first, "swamped-updates-conv", "conv" + first_seed));
  r.tables.push_back(swamping_table(runs, blocks[1].first, "swamped-updates-resnet8", "ResNet-8" + first_seed));
  std::vector<variance_row> variances;
  for (const double offset : offsets) variances.push_back(channel_variance(offset, options.seed));
  r.tables.push_back(variance_table(variances));

  for (const model_block& b : blocks) {
    add_model_checks(r, seeded, b);
    r.findings.push_back(swamped_finding(runs, b));
    r.findings.push_back(std::string(b.m->label) + " over all seeds: SR with momentum " +
                         accuracy_summary(seeded, b.first + pure_sr_run) + ", plain SGD at the same lr " +
                         accuracy_summary(seeded, b.first + plain_sr_run) + ", plain SGD at lr 0.1 " +
                         accuracy_summary(seeded, b.first + plain_sr_fast_run) +
                         ": in these short runs momentum's edge over plain SGD at the same lr is its larger "
                         "effective step; the comparison at lr 0.1 says whether anything is left of it.");
  }
  r.checks.push_back(stable_statistics_check(variances));
  const std::size_t norm_runs = blocks[1].first + runs_per_model;  // after ResNet-8's six
  r.checks.push_back(
      trained_norm_check(seeded, norm_runs + one_pass_norm_run, norm_runs + stable_norm_run, models[1].label));
  r.findings.push_back(std::string(models[1].label) + " 16.16 over all seeds, by how batch norm computes its "
                       "statistics: in double (numlab's) " + accuracy_summary(seeded, blocks[1].first + pure_run) +
                       ", in one pass (--stable-norm False) " +
                       accuracy_summary(seeded, norm_runs + one_pass_norm_run) + ", mean subtracted first "
                       "(--stable-norm True) " + accuracy_summary(seeded, norm_runs + stable_norm_run) + ".");
  r.findings.push_back("Plain SGD at the same lr takes steps ten times smaller than momentum's steady state, so "
                       "more of them fall below half an fp16 ulp of the weight; at lr 0.1 the comparison is between "
                       "the optimizers, not their step sizes.");
  r.findings.push_back("The variance table: squares of values near " + fixed(offsets.back(), 0) +
                       " pass fp16's 65504 and make E[x^2] infinite; below that, E[x^2] - E[x]^2 cancels most of "
                       "its digits as the offset grows, while the mean-subtracted form stays close at every offset.");
  r.facts.push_back({"numlab's batch-norm statistics", readme,
                     "--stable-norm STABLE_NORM Enable/disable numerically more stable but less parallelizable "
                     "normalization layers. (default: False)",
                     "two passes in double (mean first, then squared deviations) unless norm_statistics is one_pass "
                     "(--stable-norm False) or stable (True)",
                     "a property of numlab's batch norm read from its code, not a measurement"});
  return r;
}

}  // namespace

experiment graphcore_options_experiment() {
  return {"graphcore-options",
          "Graphcore's 16.16 / 16.32 / 32.32 options and SR, momentum vs plain SGD under SR (conv, ResNet-8); "
          "stable normalisation statistics in fp16",
          false, &run};
}

}  // namespace numlab::experiments
