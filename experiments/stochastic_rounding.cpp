// stochastic-rounding: Graphcore's stochastic_rounding.py: ResNet-8 and
// ResNet-14 (6N+2, N = 1, 2) in pure fp16 with nearest-even and with
// stochastic rounding, against fp32; momentum SGD whose learning rate is
// divided by the loss scale. Loss per epoch, accuracy and the fraction of
// weight updates that fp16 storage swallowed, per layer.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <libnum/small_float.hpp>

#include "experiments/experiment.hpp"
#include "experiments/printing.hpp"
#include "experiments/reference.hpp"
#include "experiments/training.hpp"

namespace numlab::experiments {
namespace {

constexpr const char* graphcore = "Graphcore TF1 fp16 tutorial (stochastic_rounding.py)";
constexpr double learning_rate = 0.01;
constexpr double loss_scale = 256;

lab::train_config resnet_config(const run_options& options, const training_sizes& sizes, std::size_t depth) {
  lab::train_config c = sized_config(options, sizes);
  c.model = "resnet";
  c.depth = depth;
  c.batch_size = 32;
  c.optimizer = "sgd";
  c.lr = learning_rate;
  c.momentum = 0.9;
  return c;
}

named_runs train_depth(const lab::train_config& base, const lab::train_data& data) {
  const std::string depth = std::to_string(base.depth);
  const std::vector<std::pair<std::string, std::string>> scaled{
      {"loss_scaling", "static"}, {"loss_scale", "256"}, {"loss_scale_method", "divide_lr"}};
  auto stochastic = scaled;
  stochastic.emplace_back("rounding", "sr");
  named_runs runs;
  train_into(runs, "ResNet-" + depth + " fp32", with_precision(base, "fp32"), data);
  train_into(runs, "ResNet-" + depth + " fp16 nearest-even", with_precision(base, "fp16", scaled), data);
  train_into(runs, "ResNet-" + depth + " fp16 stochastic", with_precision(base, "fp16", stochastic), data);
  return runs;
}

/// One row per layer: the swamped fraction of each run of one depth.
table swamping_table(const named_runs& runs, std::size_t first, const std::string& depth) {
  std::vector<std::string> columns{"layer"};
  for (std::size_t i = first; i < first + 3; ++i) columns.push_back(runs[i].first + " swamped (%)");
  table t("swamped-updates-resnet" + depth,
          "ResNet-" + depth + ": weight updates with delta != 0 that left the stored weight unchanged", columns);
  for (const auto& [layer, unused] : runs[first].second.updates) {
    std::vector<std::string> row{layer};
    for (std::size_t i = first; i < first + 3; ++i) {
      const update_census* c = runs[i].second.updates_of(layer);
      row.push_back(c == nullptr ? "-" : percent_of(c->swamped, c->nonzero_delta));
    }
    t.add_row(std::move(row));
  }
  return t;
}

/// The runs of one seed: fp32, nearest-even, stochastic at depth 8, then at 14.
named_runs train_both_depths(const run_options& options, const training_sizes& sizes, std::uint64_t seed,
                             const lab::train_data& data, bool recorded) {
  named_runs runs;
  for (const std::size_t depth : {std::size_t{8}, std::size_t{14}}) {
    lab::train_config c = resnet_config(options, sizes, depth);
    c.seed = seed;
    if (!recorded) c.trace.db.clear();
    for (auto& run : train_depth(c, data)) runs.push_back(std::move(run));
  }
  return runs;
}

experiment_result run(const run_options& options) {
  const training_sizes sizes = pick_sizes(options, {32, 32, 1}, {320, 320, 2}, {0, 0, 5});
  const lab::train_data data = lab::load_data(resnet_config(options, sizes, 8));
  const lab::train_config base = resnet_config(options, sizes, 8);
  const seeded_runs seeded = train_seeds(options, base, [&](const lab::train_config& c) {
    return train_both_depths(options, sizes, c.seed, data, !c.trace.db.empty());
  });
  const named_runs& runs = seeded.first();
  const std::string first_seed = " (seed " + std::to_string(seeded.seeds.front()) + ")";
  experiment_result r;
  r.settings = {describe_sizes(sizes, "Fashion-MNIST (first images of each split)") +
                    (options.full ? "" : "; --full: all 60000/10000 images, 5 epochs"),
                "the tutorial trains on CIFAR-10, which Debian does not package and this machine cannot download; "
                "Fashion-MNIST (28x28x1) stands in, so accuracies are not comparable with CIFAR-10's",
                "ResNet-(6N+2), N = 1, 2: conv3x3x16-bn-relu, 3 stages of N basic blocks (16/32/64 channels), "
                "global average pooling, dense10; batch 32, one BLAS thread; every run at " +
                    std::to_string(seeded.seeds.size()) + " seed(s), the per-epoch and per-layer tables at the first",
                "momentum SGD (0.9), loss scale 256 kept in the gradients and the learning rate divided by it: "
                "lr 0.01/256 (as the tutorial's training loop does)",
                "fp16 runs are pure fp16 (every op, weights, momentum and w + delta in fp16), nearest-even or "
                "stochastic rounding (Philox streams keyed by the seed, the step and the tensor)"};
  r.tables.push_back(accuracy_over_seeds_table("accuracy-over-seeds", seeded));
  r.tables.push_back(loss_per_epoch_table("loss-per-epoch", "Average training loss per epoch" + first_seed, runs));
  r.tables.push_back(outcome_table("accuracy", "Test accuracy after the last epoch" + first_seed, runs));
  r.tables.push_back(swamping_table(runs, 0, "8"));
  r.tables.push_back(swamping_table(runs, 3, "14"));

  for (std::size_t first : {std::size_t{0}, std::size_t{3}}) {
    const update_census ne = total_updates(runs[first + 1].second), sr = total_updates(runs[first + 2].second);
    const std::string depth = runs[first].first.substr(0, runs[first].first.find(' '));
    r.findings.push_back(depth + first_seed + ": nearest-even swallowed " + percent_of(ne.swamped, ne.nonzero_delta) +
                         "% of nonzero updates, stochastic " + percent_of(sr.swamped, sr.nonzero_delta) + "%.");
    r.checks.push_back(compare_accuracies(
        {depth + ": test accuracy, pure fp16 with stochastic rounding vs with nearest-even", graphcore,
         "a technique which makes some operations in FP16 more accurate on average by making the rounding "
         "operation statistically unbiased",
         "95% interval of the mean paired difference (by seed) above 0",
         "stochastic rounding is not shown to score higher than nearest-even beyond seed noise at these sizes"},
        seeded, first + 2, first + 1, accuracy_claim::higher));
  }
  r.findings.push_back("Under stochastic rounding an unchanged weight is not a lost update: w + delta rounds away "
                       "from w with probability |delta|/ulp, so the expected update survives; under nearest-even "
                       "every delta below half an ulp is lost on every step.");
  const num::small_float<num::binary16> lr16{learning_rate / loss_scale};
  const bool subnormal = num::classify(num::binary16, lr16.bits()) == num::value_class::subnormal;
  r.facts.push_back({"learning rate 0.01 divided by loss scale 256, stored in fp16", graphcore,
                     "causing the learning rate to underflow in FP16",
                     shown(lr16) + (subnormal ? "" : " (normal)"),
                     "arithmetic on two constants: 0.01/256 = 3.90625e-05 < 2^-14, so it is subnormal in fp16"});
  return r;
}

}  // namespace

experiment stochastic_rounding_experiment() {
  return {"stochastic-rounding",
          "ResNet-8/14 in pure fp16, nearest-even vs stochastic rounding vs fp32: loss, accuracy, swamped updates per layer",
          false, &run};
}

}  // namespace numlab::experiments
