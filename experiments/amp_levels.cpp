// amp-levels: MindSpore r1.7's mixed-precision tutorial. LeNet-5 trained
// with Momentum (lr 0.01, 0.9) under amp_level O0 (fp32), O2 and O3 as
// MindSpore's amp.py defines them, numlab's pure fp16 beside them, and the
// tutorial's manual mixed precision (one cell cast to fp16 with to_float).
// Two setups, each labelled: the tutorial's own (random images, random
// labels) and LeNet-5 on Fashion-MNIST (where accuracy means something).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <lab/rng.hpp>

#include "experiments/experiment.hpp"
#include "experiments/printing.hpp"
#include "experiments/reference.hpp"
#include "experiments/training.hpp"

namespace numlab::experiments {
namespace {

constexpr const char* mindspore = "MindSpore r1.7 mixed precision tutorial";

lab::train_config lenet_config(const run_options& options, const training_sizes& sizes) {
  lab::train_config c = sized_config(options, sizes);
  c.model = "lenet5";
  c.batch_size = 32;
  c.optimizer = "sgd";
  c.lr = 0.01;
  c.momentum = 0.9;
  return c;
}

using refinements = std::vector<std::pair<std::string, std::string>>;

// The levels as mindspore/train/amp.py (r1.7) sets them in _config_level and
// build_train_network (mindspore.cn/docs/en/r1.7/_modules/mindspore/train/amp.html):
// O2 and O3 both call network.to_float(float16), so every cell computes in
// fp16 while its Parameters stay fp32 and the optimizer updates them in fp32;
// both wrap the loss in a WithLossCell that casts the network's output to
// fp32 first. O2 keeps BatchNorm in fp32 and uses DynamicLossScaleManager();
// O3 sets keep_batchnorm_fp32=False and loss_scale_manager=None.
const refinements o2_settings{{"autocast.norm", "fp32"}, {"autocast.loss", "fp32"}, {"loss_scaling", "mindspore"}};
const refinements o3_settings{{"autocast.norm", "low"}, {"autocast.loss", "fp32"}, {"loss_scaling", "none"}};

enum run_index : std::size_t { o0_run, o2_run, o3_run, pure_run, manual_run };

/// O0, O2, O3, numlab's pure fp16 and, when `manual` names a layer, that one
/// layer in fp16 with the rest in fp32 (the tutorial's to_float example).
named_runs train_levels(const lab::train_config& c, const lab::train_data& data, const std::string& manual) {
  named_runs runs;
  train_into(runs, "O0 (fp32)", with_precision(c, "fp32"), data);
  train_into(runs, "O2 (MindSpore: fp16 compute, batch norm and loss fp32, fp32 parameters, dynamic scale)",
             with_precision(c, "fp16-mixed", o2_settings), data);
  train_into(runs, "O3 (MindSpore: fp16 compute incl. batch norm, loss fp32, fp32 parameters, no scale)",
             with_precision(c, "fp16-mixed", o3_settings), data);
  train_into(runs, "pure fp16 (numlab: loss, parameters and update in fp16 too)", with_precision(c, "fp16"), data);
  if (!manual.empty()) {
    train_into(runs, "manual: " + manual + ".to_float(float16), the rest fp32",
               with_precision(c, "fp32", {{"layers." + manual + ".precision", "fp16"}}), data);
  }
  return runs;
}

/// The tutorial's get_data: `count` 1x32x32 images of N(0, 1) values and
/// uniformly random labels among 10 (np.random.randn, np.random.randint).
lab::dataset random_images(std::size_t count, std::uint64_t seed, std::uint64_t stream) {
  lab::dataset d;
  d.images = lab::tensor(lab::shape{count, 1, 32, 32});
  d.labels.resize(count);
  lab::rng gen(seed, stream);
  for (float& v : d.images.values()) v = gen.normal();
  for (auto& label : d.labels) label = static_cast<std::int32_t>(gen.below(10));
  return d;
}

table diagnosis_table(const named_runs& runs) {
  table t("diagnosis", "What each level's low precision did, all training steps (first seed)",
          {"level", "gradient values", "underflowed to zero (%)", "fp16 subnormal (%)", "nonzero updates",
           "swamped updates (%)", "skipped steps"});
  for (const auto& [name, run] : runs) {
    const gradient_census g = total_gradients(run);
    const update_census u = total_updates(run);
    t.add_row({name, std::to_string(g.elements), percent_of(g.underflow_to_zero, g.elements, 3),
               percent_of(g.subnormal, g.elements, 3), std::to_string(u.nonzero_delta),
               percent_of(u.swamped, u.nonzero_delta, 3), std::to_string(run.skipped_steps())});
  }
  return t;
}

/// The last epoch's average training loss of run `index`, at the seeds whose
/// run finished (a stopped run is counted, not scored).
struct final_losses {
  std::vector<double> finished;
  std::size_t stopped = 0;
};

final_losses final_losses_over_seeds(const seeded_runs& runs, std::size_t index) {
  final_losses f;
  for (const named_runs& by_seed : runs.by_seed) {
    const training_run& run = by_seed.at(index).second;
    if (run.stopped() || run.epochs.empty()) {
      ++f.stopped;
    } else {
      f.finished.push_back(run.epochs.back().train_loss);
    }
  }
  return f;
}

// Mean and sd in columns of their own (empty where no seed finished, the sd
// where one did), so that a program reading the CSV finds numbers there.
table final_loss_table(const std::string& id, const seeded_runs& runs) {
  table t(id, "Average training loss of the last epoch over " + std::to_string(runs.seeds.size()) + " seed(s)",
          {"run", "seeds stopped", "final training loss, mean", "final training loss, sd",
           "skipped steps (first seed)"});
  for (std::size_t i = 0; i < runs.first().size(); ++i) {
    const final_losses f = final_losses_over_seeds(runs, i);
    const sample_summary s = summarize(f.finished);
    t.add_row({runs.first()[i].first, std::to_string(f.stopped), s.count > 0 ? fixed(s.mean, 4) : std::string(),
               s.count > 1 ? fixed(s.standard_deviation, 4) : std::string(),
               std::to_string(runs.first()[i].second.skipped_steps())});
  }
  return t;
}

experiment_result run(const run_options& options) {
  experiment_result r;
  // Setup 1: the tutorial's own (1024 random samples, batch 32, drop_remainder, 10 epochs).
  const training_sizes tutorial_sizes = pick_sizes(options, {64, 64, 1}, {1024, 256, 10}, {1024, 256, 10});
  lab::train_config random_base = lenet_config(options, tutorial_sizes);
  random_base.drop_last = true;
  const lab::train_data random_data{random_images(tutorial_sizes.train_limit, options.seed, 101),
                                    random_images(tutorial_sizes.test_limit, options.seed, 102)};
  const seeded_runs tutorial = train_seeds(options, random_base, [&](const lab::train_config& c) {
    return train_levels(c, random_data, "conv1");
  });

  // Setup 2: LeNet-5 on Fashion-MNIST, where test accuracy measures something.
  const training_sizes sizes = pick_sizes(options, {64, 64, 1}, {2000, 1000, 2}, {0, 0, 10});
  const lab::train_config base = lenet_config(options, sizes);
  const lab::train_data data = lab::load_data(base);
  const seeded_runs fashion =
      train_seeds(options, base, [&](const lab::train_config& c) { return train_levels(c, data, ""); });
  const named_runs& runs = fashion.first();
  const std::string first_seed = " (seed " + std::to_string(fashion.seeds.front()) + ")";

  r.settings = {
      "setup 1, the tutorial's own: " + std::to_string(tutorial_sizes.train_limit) +
          " random 1x32x32 images of N(0, 1) values with uniformly random labels (its get_data: np.random.randn, "
          "np.random.randint), batch 32 with drop_remainder, " + std::to_string(tutorial_sizes.epochs) +
          " epoch(s) as its O3 example; a second random set of " + std::to_string(tutorial_sizes.test_limit) +
          " images stands for the test set it does not have, so test accuracy there is chance (10%)",
      "setup 2: " + describe_sizes(sizes, "Fashion-MNIST (first images of each split)") +
          (options.full ? "" : "; --full: all images, 10 epochs"),
      "LeNet-5 (conv5x5x6 - relu - maxpool - conv5x5x16 - relu - maxpool - 120 - 84 - 10; 'valid' padding on "
      "32x32, 'same' on 28x28), batch 32, Momentum lr 0.01 momentum 0.9, softmax cross-entropy, one BLAS thread; "
      "every run at " + std::to_string(fashion.seeds.size()) + " seed(s), per-epoch tables at the first",
      "O2 and O3 as MindSpore r1.7's amp.py defines them (_config_level, build_train_network: "
      "https://mindspore.cn/docs/en/r1.7/_modules/mindspore/train/amp.html and "
      "https://mindspore.cn/docs/en/r1.7/api_python/mindspore/mindspore.build_train_network.html): every cell "
      "computes in fp16 (to_float), Parameters stay fp32 and are updated in fp32, the loss is computed in fp32 "
      "on the fp32-cast output; O2 keeps batch norm fp32 and uses DynamicLossScaleManager (2^24, x2 after 2000 "
      "clean steps, x0.5 and skip on overflow: "
      "https://mindspore.cn/docs/en/r1.7/api_python/mindspore/mindspore.DynamicLossScaleManager.html); O3 runs "
      "batch norm in fp16 and has no loss scale. LeNet-5 has no batch norm, so here O3 is O2 without loss scaling",
      "pure fp16 is numlab's, not a MindSpore level: loss, parameters and the Momentum update in fp16 too "
      "(nearest-even), no loss scale",
      "manual (setup 1 only): the tutorial's to_float example, conv1 computing in fp16 and every other layer "
      "in fp32 (without the amp_level=\"O2\" its listing also passes, which would cast the whole network)"};
  r.tables.push_back(final_loss_table("tutorial-setup-final-loss", tutorial));
  r.tables.push_back(loss_per_epoch_table(
      "tutorial-setup-loss-per-epoch",
      "Setup 1 (the tutorial's random data): average training loss per epoch" + first_seed, tutorial.first()));
  r.tables.push_back(accuracy_over_seeds_table("fashion-accuracy-over-seeds", fashion));
  r.tables.push_back(loss_per_epoch_table(
      "fashion-loss-per-epoch", "Setup 2 (Fashion-MNIST): average training loss per epoch" + first_seed, runs));
  r.tables.push_back(
      outcome_table("fashion-accuracy", "Setup 2 (Fashion-MNIST): test accuracy after the last epoch" + first_seed,
                    runs));
  r.tables.push_back(diagnosis_table(runs));
  r.tables.push_back(trajectory_table("fashion-o2-loss-scale", runs[o2_run].second, options.tiny ? 8 : 20));

  const training_run& o0 = runs[o0_run].second;
  const training_run& o3 = runs[o3_run].second;
  const update_census pure_updates = total_updates(runs[pure_run].second), o0_updates = total_updates(o0);
  r.findings = {
      "Setup 1 has nothing to learn (random labels): the training loss only shows how far each level memorises "
      "1024 random images; O0, O2, O3 and the manual conv1-in-fp16 run reach the final losses of the first table.",
      "Setup 2: MindSpore's O3 " +
          (o3.stopped() ? "stopped: " + o3.failure
                        : "trained (" + fixed(100 * o3.final_accuracy(), 2) + "% vs O0's " +
                              fixed(100 * o0.final_accuracy(), 2) + "% at the first seed)") +
          "; with fp32 parameters it left " + percent_of(total_updates(o3).swamped, total_updates(o3).nonzero_delta) +
          "% of its nonzero updates without effect (O0: " +
          percent_of(total_updates(o0).swamped, total_updates(o0).nonzero_delta) + "%).",
      "Setup 2, numlab's pure fp16: fp16 weights swallowed " +
          percent_of(pure_updates.swamped, pure_updates.nonzero_delta) +
          "% of its nonzero Momentum updates (O0's fp32 weights: " +
          percent_of(o0_updates.swamped, o0_updates.nonzero_delta) + "%), and " +
          percent_of(total_gradients(runs[pure_run].second).underflow_to_zero,
                     total_gradients(runs[pure_run].second).elements, 3) +
          "% of its gradient values underflowed to zero without a loss scale."};
  // The tutorial prints no accuracy, so these comparisons are findings, not verdicts.
  for (const std::size_t level : {std::size_t{o3_run}, std::size_t{pure_run}}) {
    const reference_check against_o0 = compare_accuracies({}, fashion, level, o0_run, accuracy_claim::within, 0.01);
    r.findings.push_back("Setup 2, test accuracy: " + against_o0.computed + ".");
  }
  r.checks.push_back(check_claim(
      {"setup 2: O2's skipped updates (first seed)", mindspore,
       "The optimizer checks whether the gradient overflows. If yes, the optimizer skips the update.",
       "skipped steps > 0 (the 2^24 initial scale must overflow fp16 gradients at first)",
       "no gradient overflowed under the 2^24 initial scale in this run, so nothing was skipped"},
      std::to_string(runs[o2_run].second.skipped_steps()) + " skipped steps",
      runs[o2_run].second.skipped_steps() > 0));
  r.facts.push_back({"O2: batch norm and loss in fp32", mindspore,
                     "Due to precision problems, the BatchNorm operator and operators involved in loss still use "
                     "FP32.",
                     "set so in O2's settings (autocast.norm fp32, autocast.loss fp32)",
                     "it reads back a setting numlab was given; the run cannot contradict it"});
  return r;
}

}  // namespace

experiment amp_levels_experiment() {
  return {"amp-levels",
          "LeNet-5 under MindSpore's O0 / O2 / O3 and numlab's pure fp16: the tutorial's random-data setup and "
          "Fashion-MNIST",
          false, &run};
}

}  // namespace numlab::experiments
