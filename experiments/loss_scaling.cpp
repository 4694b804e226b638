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
/// Clean steps before the dynamic scale doubles, shorter than GradScaler's
/// 2000 so that growth shows: 50 over the full run's 9375 steps, 8 over the
/// short runs' 32.
std::size_t growth_interval(const run_options& options) { return options.full ? 50 : 8; }

enum run_index : std::size_t { none_run, static_run, dynamic_run };

named_runs train_all(const lab::train_config& base, const lab::train_data& data, std::size_t interval) {
  named_runs runs;
  train_into(runs, "no loss scaling", with_precision(base, "fp16-mixed"), data);
  train_into(runs, "static 256",
             with_precision(base, "fp16-mixed", {{"loss_scaling", "static"}, {"loss_scale", "256"}}), data);
  train_into(runs, "dynamic",
             with_precision(base, "fp16-mixed",
                            {{"loss_scaling", "dynamic"}, {"loss_scale_interval", std::to_string(interval)}}),
             data);
  return runs;
}

table gradient_table(const named_runs& runs) {
  table t("gradient-underflow",
          "fp16 gradient values per layer (dL/dweight and dL/dinput, all training steps), as the policy stored them",
          {"loss scaling", "layer", "values", "exactly zero (%)", "underflowed to zero (%)", "fp16 subnormal (%)"});
  for (const auto& [name, run] : runs) {
    for (const auto& [layer, c] : run.gradients) {
      t.add_row({name, layer, std::to_string(c.elements), percent_of(c.zeros, c.elements, 3),
                 percent_of(c.underflow_to_zero, c.elements, 3), percent_of(c.subnormal, c.elements, 3)});
    }
  }
  return t;
}

/// Times the dynamic scale grew (changed upwards between consecutive steps).
std::size_t growths(const training_run& run) {
  std::size_t n = 0;
  for (std::size_t i = 1; i < run.steps.size(); ++i) n += run.steps[i].loss_scale > run.steps[i - 1].loss_scale ? 1 : 0;
  return n;
}

/// Steps of a GradScaler run that break its skip rule: a skipped step must
/// name the non-finite gradient, apply no update (lr 0) and halve the scale
/// for the next step; a step that was not skipped must name none.
std::size_t skip_rule_violations(const training_run& run) {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < run.steps.size(); ++i) {
    const lab::step_info& s = run.steps[i];
    if (!s.skipped) {
      bad += s.skip_reason.empty() ? 0 : 1;
      continue;
    }
    const bool halved = i + 1 == run.steps.size() || run.steps[i + 1].loss_scale == s.loss_scale / 2;
    bad += (!s.skip_reason.empty() && s.lr == 0.0 && halved) ? 0 : 1;
  }
  return bad;
}

experiment_result run(const run_options& options) {
  const training_sizes sizes = pick_sizes(options, {64, 64, 1}, {1000, 500, 1}, {0, 0, 5});
  const std::size_t interval = growth_interval(options);
  const lab::train_config base = tutorial_conv_config(options, sizes);
  const lab::train_data data = lab::load_data(base);
  const seeded_runs seeded =
      train_seeds(options, base, [&](const lab::train_config& c) { return train_all(c, data, interval); });
  const named_runs& runs = seeded.first();
  const std::string first_seed = " (seed " + std::to_string(seeded.seeds.front()) + ")";
  const training_run& dynamic = runs[dynamic_run].second;
  experiment_result r;
  r.settings = {describe_sizes(sizes, "Fashion-MNIST (first images of each split)") +
                    (options.full ? "" : "; --full: all 60000/10000 images, 5 epochs"),
                "model conv3x3x32 - relu - conv3x3x32 - flatten - dense10, batch 32, Adam lr 0.01 eps 1e-4, one "
                "BLAS thread; every run at " + std::to_string(seeded.seeds.size()) +
                    " seed(s), the per-layer and per-epoch tables at the first",
                "precision fp16-mixed: conv and dense compute in fp16 (nearest-even), so every gradient they "
                "produce is rounded to fp16; loss and master weights fp32",
                "dynamic: GradScaler semantics (initial 65536, x2 after " + std::to_string(interval) +
                    " clean steps, x0.5 and skip on inf/NaN)" +
                    " (GradScaler's default is 2000; this shorter interval lets the run show growth)",
                "'underflowed to zero': nonzero before rounding to fp16, zero after (libnum's conversion counts); "
                "'exactly zero' includes ReLU's structural zeros"};
  r.tables.push_back(accuracy_over_seeds_table("accuracy-over-seeds", seeded));
  r.tables.push_back(gradient_table(runs));
  r.tables.push_back(trajectory_table("dynamic-scale", dynamic, options.tiny ? 8 : 40));
  r.tables.push_back(loss_per_epoch_table("loss-per-epoch", "Average training loss per epoch" + first_seed, runs));
  r.tables.push_back(outcome_table("accuracy", "Test accuracy after the last epoch" + first_seed, runs));

  const std::uint64_t none = total_gradients(runs[none_run].second).underflow_to_zero;
  const reference_check scaling_helps = compare_accuracies(
      {"test accuracy, static loss scale 256 vs no loss scaling", graphcore,
       "the gradients can underflow. This can be difficult to debug because the model will simply appear to not "
       "be training",
       "95% interval of the mean paired difference (by seed) above 0",
       "loss scaling bought no accuracy on this model: the underflowed gradients did not stop it training"},
      seeded, static_run, none_run, accuracy_claim::higher);
  r.findings = {"Gradient values that underflowed to zero, all layers" + first_seed + ": " + std::to_string(none) +
                    " without scaling, " + std::to_string(total_gradients(runs[static_run].second).underflow_to_zero) +
                    " with 256, " + std::to_string(total_gradients(dynamic).underflow_to_zero) +
                    " with dynamic scaling.",
                "Dynamic scaling" + first_seed + " skipped " + std::to_string(dynamic.skipped_steps()) + " of " +
                    std::to_string(dynamic.steps.size()) + " steps, grew the scale " + std::to_string(growths(dynamic)) +
                    " time(s) and ended at scale " +
                    (dynamic.steps.empty() ? std::string("-") : significant(dynamic.steps.back().loss_scale, 8)) + ".",
                "Test accuracy with and without loss scaling: " + scaling_helps.computed + "." +
                    (scaling_helps.matches ? "" : " Loss scaling removed underflows but bought no accuracy here.")};
  r.facts.push_back({"smallest positive fp16 value, 2^-24, printed with two significant digits", graphcore,
                     "6.0e-08", scientific(std::ldexp(1.0, -24), 1), "an identity of the fp16 format"});
  r.facts.push_back({"half of it, 2^-25, below which fp16 rounds to zero", graphcore, "3.0e-08",
                     scientific(std::ldexp(1.0, -25), 1), "an identity of the fp16 format"});
  r.checks.push_back(check_claim(
      {"gradient values rounded to zero by fp16 without loss scaling" + first_seed, graphcore,
       "the gradients can underflow", "count of nonzero gradient values that fp16 rounded to zero > 0",
       "no gradient value underflowed in this run: its gradients stay above 2^-25"},
      std::to_string(none) + " values", none > 0));
  r.checks.push_back(scaling_helps);
  const std::size_t violations = skip_rule_violations(dynamic);
  r.checks.push_back(check_claim(
      {"dynamic (GradScaler) run" + first_seed + ": steps with inf/NaN gradients",
       "PyTorch recipe: Automatic Mixed Precision",
       "If these gradients do not contain ``inf``s or ``NaN``s, optimizer.step() is then called, otherwise, "
       "optimizer.step() is skipped.",
       "every skipped step names a non-finite gradient, applies no update (lr 0) and halves the next step's "
       "scale, no other step names one, and at least one step was skipped",
       dynamic.skipped_steps() == 0 ? "no gradient overflowed, so the rule was not exercised"
                                    : std::to_string(violations) + " steps break the rule"},
      std::to_string(dynamic.skipped_steps()) + " skipped steps, " + std::to_string(violations) +
          " breaking the rule",
      dynamic.skipped_steps() > 0 && violations == 0));
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
