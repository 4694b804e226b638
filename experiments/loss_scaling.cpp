// loss-scaling: the Graphcore tutorial's conv model on Fashion-MNIST with
// fp16 compute: per layer, how many gradient values underflow to zero and
// how many are fp16 subnormals without loss scaling, with a static scale of
// 256 and with dynamic (GradScaler) scaling; the dynamic scale's trajectory.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "experiments/experiment.hpp"
#include "experiments/printing.hpp"
#include "experiments/reference.hpp"
#include "experiments/training.hpp"

namespace numlab::experiments {
namespace {

constexpr const char* graphcore = "Graphcore TF1 fp16 tutorial (Underflowing gradients and loss scaling)";
constexpr const char* growth_interval = "50";

named_runs train_all(const lab::train_config& base) {
  const lab::train_data data = lab::load_data(base);
  named_runs runs;
  train_into(runs, "no loss scaling", with_precision(base, "fp16-mixed"), data);
  train_into(runs, "static 256",
             with_precision(base, "fp16-mixed", {{"loss_scaling", "static"}, {"loss_scale", "256"}}), data);
  train_into(runs, "dynamic",
             with_precision(base, "fp16-mixed",
                            {{"loss_scaling", "dynamic"}, {"loss_scale_interval", growth_interval}}),
             data);
  return runs;
}

table gradient_table(const named_runs& runs) {
  table t("gradient-underflow",
          "fp16 gradient values per layer (dL/dweight and dL/dinput, all training steps), as the policy stored them",
          {"loss scaling", "layer", "values", "exactly zero", "underflowed to zero", "fp16 subnormal"});
  for (const auto& [name, run] : runs) {
    for (const auto& [layer, c] : run.gradients) {
      t.add_row({name, layer, std::to_string(c.elements), percent_of(c.zeros, c.elements, 3),
                 percent_of(c.underflow_to_zero, c.elements, 3), percent_of(c.subnormal, c.elements, 3)});
    }
  }
  return t;
}

experiment_result run(const run_options& options) {
  const training_sizes sizes = pick_sizes(options, {64, 64, 1}, {1000, 500, 1}, {0, 0, 5});
  const named_runs runs = train_all(tutorial_conv_config(options, sizes));
  experiment_result r;
  r.settings = {describe_sizes(sizes, "Fashion-MNIST (first images of each split)") +
                    (options.full ? "" : "; --full: all 60000/10000 images, 5 epochs"),
                "model conv3x3x32 - relu - conv3x3x32 - flatten - dense10, batch 32, Adam lr 0.01 eps 1e-4, seed " +
                    std::to_string(options.seed) + ", one BLAS thread",
                "precision fp16-mixed: conv and dense compute in fp16 (nearest-even), so every gradient they "
                "produce is rounded to fp16; loss and master weights fp32",
                "dynamic: GradScaler semantics (initial 65536, x2 after " + std::string(growth_interval) +
                    " clean steps instead of 2000 so short runs show growth, x0.5 and skip on inf/NaN)",
                "'underflowed to zero': nonzero before rounding to fp16, zero after (libnum's conversion counts); "
                "'exactly zero' includes ReLU's structural zeros"};
  r.tables.push_back(gradient_table(runs));
  r.tables.push_back(trajectory_table("dynamic-scale", runs[2].second, options.tiny ? 8 : 40));
  r.tables.push_back(loss_per_epoch_table("loss-per-epoch", "Average training loss per epoch", runs));
  r.tables.push_back(outcome_table("accuracy", "Test accuracy after the last epoch", runs));

  const std::uint64_t none = total_gradients(runs[0].second).underflow_to_zero;
  r.findings = {"Gradient values that underflowed to zero, all layers: " + std::to_string(none) +
                    " without scaling, " + std::to_string(total_gradients(runs[1].second).underflow_to_zero) + " with 256, " +
                    std::to_string(total_gradients(runs[2].second).underflow_to_zero) + " with dynamic scaling.",
                "Dynamic scaling skipped " + std::to_string(runs[2].second.skipped_steps()) + " of " +
                    std::to_string(runs[2].second.steps.size()) + " steps and ended at scale " +
                    (runs[2].second.steps.empty() ? std::string("-")
                                                  : significant(runs[2].second.steps.back().loss_scale, 8)) + "."};
  r.checks.push_back(check_printed({"smallest positive fp16 value (2^-24)", graphcore, "6.0e-08",
                                    "2^-24 printed with two significant digits should read 6.0e-08"},
                                   scientific(std::ldexp(1.0, -24), 1)));
  r.checks.push_back(check_printed({"below this, fp16 rounds to zero (half of 2^-24)", graphcore, "3.0e-08",
                                    "2^-25 printed with two significant digits should read 3.0e-08"},
                                   scientific(std::ldexp(1.0, -25), 1)));
  r.checks.push_back(check_printed(
      {"without loss scaling, fp16 gradients of this model underflow", graphcore, "the gradients can underflow",
       "no gradient value underflowed in this run: its gradients stay above 2^-25"},
      none > 0 ? "the gradients can underflow" : "no gradient underflowed"));
  return r;
}

}  // namespace

experiment loss_scaling_experiment() {
  return {"loss-scaling",
          "tutorial conv model in fp16: per-layer gradient underflow/subnormals with no, static 256, dynamic "
          "loss scaling; the dynamic scale's trajectory",
          false, &run};
}

}  // namespace numlab::experiments
