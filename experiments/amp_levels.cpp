// amp-levels: MindSpore's mixed-precision tutorial: LeNet-5 trained with
// Momentum (lr 0.01, 0.9) under amp_level O0 (fp32), O2 (fp16 compute,
// batch norm and loss fp32, fp32 master weights, DynamicLossScaleManager)
// and O3 (everything fp16, no loss scaling): loss, accuracy, and where O3
// goes wrong (underflowed gradients, swallowed updates, divergence).
#include <string>
#include <utility>
#include <vector>

#include <lab/precision_policy.hpp>

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
  c.lr = 0.01f;
  c.momentum = 0.9f;
  return c;
}

table diagnosis_table(const named_runs& runs) {
  table t("diagnosis", "What each level's low precision did, all training steps",
          {"level", "gradient values", "underflowed to zero", "fp16 subnormal", "nonzero updates",
           "swamped updates", "skipped steps"});
  for (const auto& [name, run] : runs) {
    const gradient_census g = total_gradients(run);
    const update_census u = total_updates(run);
    t.add_row({name, std::to_string(g.elements), percent_of(g.underflow_to_zero, g.elements, 3),
               percent_of(g.subnormal, g.elements, 3), std::to_string(u.nonzero_delta),
               percent_of(u.swamped, u.nonzero_delta, 3), std::to_string(run.skipped_steps())});
  }
  return t;
}

experiment_result run(const run_options& options) {
  const training_sizes sizes = pick_sizes(options, {64, 64, 1}, {2000, 1000, 2}, {0, 0, 10});
  const lab::train_config base = lenet_config(options, sizes);
  const lab::train_data data = lab::load_data(base);
  named_runs runs;
  train_into(runs, "O0 (fp32)", with_precision(base, "fp32"), data);
  train_into(runs, "O2 (fp16, fp32 loss/bn/master, dynamic scale)",
             with_precision(base, "fp16-mixed", {{"loss_scaling", "mindspore"}}), data);
  train_into(runs, "O3 (all fp16)", with_precision(base, "fp16"), data);

  experiment_result r;
  r.settings = {describe_sizes(sizes, "Fashion-MNIST (the tutorial uses MNIST; first images of each split)") +
                    (options.full ? "" : "; --full: all images, 10 epochs as in the O3 example"),
                "LeNet-5 (conv5x5x6 - relu - maxpool - conv5x5x16 - relu - maxpool - 120 - 84 - 10), batch 32, "
                "Momentum lr 0.01 momentum 0.9, softmax cross-entropy, seed " + std::to_string(options.seed) +
                    ", one BLAS thread",
                "O2 as MindSpore's amp.py sets it: network fp16, batch norm and loss fp32, fp32 parameters, "
                "DynamicLossScaleManager (2^24, x2 every 1000 steps, x0.5 and skip on overflow)",
                "O3 as this experiment defines it: pure fp16 (loss, parameters and the Momentum update in fp16, "
                "nearest-even), no loss scaling; MindSpore's own O3 still casts the loss to fp32 and keeps fp32 "
                "Parameters"};
  r.tables.push_back(loss_per_epoch_table("loss-per-epoch", "Average training loss per epoch", runs));
  r.tables.push_back(outcome_table("accuracy", "Test accuracy after the last epoch", runs));
  r.tables.push_back(diagnosis_table(runs));
  r.tables.push_back(trajectory_table("o2-loss-scale", runs[1].second, options.tiny ? 8 : 20));

  const training_run& o0 = runs[0].second;
  const training_run& o3 = runs[2].second;
  const update_census o3_updates = total_updates(o3), o0_updates = total_updates(o0);
  r.findings = {
      "O3 " + (o3.failure.empty() ? "did not fail at these sizes: test accuracy " + fixed(100 * o3.final_accuracy(), 2) +
                                        "% vs O0's " + fixed(100 * o0.final_accuracy(), 2) + "%"
                                  : "stopped: " + o3.failure) +
          ".",
      "Where O3 loses: fp16 weights swallowed " + percent_of(o3_updates.swamped, o3_updates.nonzero_delta) +
          " of its nonzero Momentum updates (O0: " + percent_of(o0_updates.swamped, o0_updates.nonzero_delta) +
          " left fp32 weights unchanged), and " + percent_of(total_gradients(o3).underflow_to_zero,
                                                              total_gradients(o3).elements, 3) +
          " of its gradient values underflowed to zero without a loss scale; " +
          (options.full ? "over the tutorial's 10 epochs they cost " +
                              fixed(100.0 * (o0.final_accuracy() - o3.final_accuracy()), 2) +
                              " points of test accuracy against O0 (negative: none)."
                        : "whether the swallowed updates cost accuracy over 10 epochs is what --full measures.")};
  const lab::precision_policy o2 = lab::precision_preset("fp16-mixed");
  const bool fp32_loss = o2.of(lab::op_class::loss) == lab::class_precision::fp32 &&
                         o2.of(lab::op_class::norm) == lab::class_precision::fp32;
  r.checks.push_back(check_printed({"O2: batch norm and loss in fp32", mindspore,
                                    "the BatchNorm operator and operators involved in loss still use FP32",
                                    "numlab's fp16-mixed preset rounds norm or loss to fp16"},
                                   fp32_loss ? "the BatchNorm operator and operators involved in loss still use FP32"
                                             : "fp16 norm or loss"));
  r.checks.push_back(check_printed(
      {"O2: an update with overflowing gradients is skipped", mindspore, "the optimizer skips the update",
       "no gradient overflowed under the 2^24 initial scale in this run, so nothing was skipped"},
      runs[1].second.skipped_steps() > 0 ? "the optimizer skips the update" : "no step skipped"));
  return r;
}

}  // namespace

experiment amp_levels_experiment() {
  return {"amp-levels", "LeNet-5 under MindSpore's O0 / O2 / O3: loss, accuracy, and where all-fp16 O3 fails", false,
          &run};
}

}  // namespace numlab::experiments
