// fp8-scaling: issue 19's FP8 recipes against unscaled E4M3 and fp32 on the
// tutorial conv model and ResNet-8. Per-tensor current scaling
// (TransformerEngine Float8CurrentScaling) and delayed scaling from an amax
// history (DelayedScaling, history 1024, 16 and 1): accuracy over seeds, and
// what each scaling rule saturates and flushes to zero in the GEMM operands.
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "experiments/experiment.hpp"
#include "experiments/printing.hpp"
#include "experiments/reference.hpp"
#include "experiments/scaled_census.hpp"
#include "experiments/training.hpp"

namespace numlab::experiments {
namespace {

constexpr const char* te_delayed =
    "TransformerEngine docs, FP8 Delayed Scaling (nvidia.github.io/TransformerEngine/features/low_precision_training/"
    "fp8_delayed_scaling)";

enum run_index : std::size_t {
  fp32_run,
  unscaled_run,
  current_run,
  delayed_run,      // history 1024 (TE's default)
  delayed_16_run,
  delayed_1_run,
  runs_per_model
};

struct model_choice {
  const char* label;
  bool resnet;
};
constexpr std::array<model_choice, 2> models{{{"conv", false}, {"ResNet-8", true}}};

lab::train_config model_config(const run_options& options, const training_sizes& sizes, const model_choice& m) {
  if (!m.resnet) return tutorial_conv_config(options, sizes);
  lab::train_config c = sized_config(options, sizes);
  c.model = "resnet";
  c.depth = 8;
  c.batch_size = 32;
  c.optimizer = "sgd";
  c.lr = 0.01;
  c.momentum = 0.9;
  return c;
}

void train_model(named_runs& runs, const lab::train_config& c, const lab::train_data& data, const std::string& label) {
  train_into(runs, label + " fp32", with_precision(c, "fp32"), data);
  // Unscaled: conv and dense compute in E4M3 (inputs, weights, outputs and
  // gradients rounded to it, saturating as FP8 casts do), everything else fp32.
  train_into(runs, label + " E4M3, no scaling",
             with_precision(c, "fp16-mixed",
                            {{"precision_format", "e4m3"}, {"overflow", "saturate"}, {"autocast.elementwise", "fp32"}}),
             data);
  train_into(runs, label + " fp8-current", with_precision(c, "fp8-current"), data);
  train_into(runs, label + " fp8-delayed, history 1024", with_precision(c, "fp8-delayed"), data);
  train_into(runs, label + " fp8-delayed, history 16",
             with_precision(c, "fp8-delayed", {{"scaled.amax_history_len", "16"}}), data);
  train_into(runs, label + " fp8-delayed, history 1",
             with_precision(c, "fp8-delayed", {{"scaled.amax_history_len", "1"}}), data);
}

/// The unscaled run's E4M3 conversions, from the policy's tally: elements
/// rounded, overflowed (saturated) and flushed to zero, by role.
table unscaled_table(const std::string& id, const std::string& label, const training_run& run) {
  table t(id, label + ": E4M3 without scaling, what rounding to E4M3 did, by tensor role (first seed)",
          {"role", "elements", "saturated (%)", "flushed to zero (%)"});
  for (const lab::tensor_role role :
       {lab::tensor_role::activation, lab::tensor_role::weight, lab::tensor_role::grad_input,
        lab::tensor_role::grad_weight}) {
    const auto r = static_cast<std::size_t>(role);
    const std::uint64_t n = run.tally.elements[r];
    if (n == 0) continue;
    t.add_row({std::string(lab::role_name(role)), std::to_string(n), percent_of(run.tally.by_role[r].overflowed, n, 3),
               percent_of(run.tally.by_role[r].underflow_to_zero, n, 3)});
  }
  return t;
}

experiment_result run(const run_options& options) {
  const training_sizes sizes = pick_sizes(options, {16, 16, 1}, {128, 128, 2}, {0, 0, 5});
  const seeded_runs seeded = train_models_at_seeds(
      options, models, [&](const model_choice& m) { return model_config(options, sizes, m); },
      [](named_runs& runs, const lab::train_config& c, const lab::train_data& data, const model_choice& m) {
        train_model(runs, c, data, m.label);
      });
  const named_runs& runs = seeded.first();
  const std::string first_seed = " (seed " + std::to_string(seeded.seeds.front()) + ")";

  experiment_result r;
  r.settings = {
      describe_sizes(sizes, "Fashion-MNIST (first images of each split)") +
          (options.full ? "" : "; --full: all 60000/10000 images, 5 epochs"),
      "models: the tutorial conv (Adam lr 0.01, eps 1e-4, batch 32) and ResNet-8 (SGD momentum 0.9, lr 0.01, batch "
      "32); one BLAS thread; every run at " + std::to_string(seeded.seeds.size()) +
          " seed(s), the quantization tables at the first",
      "fp8 recipes (lab's presets): every conv and dense GEMM's operands quantized along the reduction dimension, "
      "E4M3 activations and weights, E5M2 gradients (TE's HYBRID), one fp32 scale per tensor, amax * 2^0 / "
      "max_elem; current: from the tensor's own amax; delayed: from the max of the amax history of earlier steps "
      "(an empty history gives scale 1); fp32 master weights and partials, other ops fp32",
      "E4M3, no scaling: conv and dense inputs, weights, outputs and gradients rounded to E4M3 (saturating), other "
      "ops fp32"};
  r.tables.push_back(accuracy_over_seeds_table("accuracy-over-seeds", seeded));
  std::vector<std::pair<std::string, layer_censuses>> scaled;
  for (std::size_t k = 0; k < models.size(); ++k)
    for (std::size_t i = current_run; i < runs_per_model; ++i) {
      const auto& [name, run] = runs[k * runs_per_model + i];
      scaled.emplace_back(name, run.quantized);
    }
  r.tables.push_back(quantization_table("quantization",
                                        "What each scaling rule did to the GEMM operands, all layers and steps" +
                                            first_seed,
                                        scaled));
  for (std::size_t k = 0; k < models.size(); ++k)
    r.tables.push_back(unscaled_table(std::string("unscaled-") + (models[k].resnet ? "resnet8" : "conv"),
                                      models[k].label, runs[k * runs_per_model + unscaled_run].second));

  for (std::size_t k = 0; k < models.size(); ++k) {
    const std::size_t first = k * runs_per_model;
    const std::string label = models[k].label;
    const operand_censuses current = total_census(runs[first + current_run].second.quantized);
    const operand_censuses delayed = total_census(runs[first + delayed_run].second.quantized);
    scaled_census current_all, delayed_all;
    for (const auto& c : current) current_all += c;
    for (const auto& c : delayed) delayed_all += c;
    r.checks.push_back(check_claim(
        {label + " (first seed): GEMM operand elements clipped (saturated), delayed (history 1024) vs current scaling",
         te_delayed, "Values exceeding FP8 range are clipped.",
         "delayed scaling clips some elements (> 0) and current scaling clips none",
         "delayed scaling clipped nothing here, or current scaling clipped too"},
        "delayed " + std::to_string(delayed_all.saturated) + " of " + std::to_string(delayed_all.elements) +
            ", current " + std::to_string(current_all.saturated) + " of " + std::to_string(current_all.elements),
        delayed_all.saturated > 0 && current_all.saturated == 0));
    r.findings.push_back(label + " test accuracy: fp32 " + accuracy_summary(seeded, first + fp32_run) +
                         "; E4M3 unscaled " + accuracy_summary(seeded, first + unscaled_run) + "; fp8-current " +
                         accuracy_summary(seeded, first + current_run) + "; fp8-delayed (1024) " +
                         accuracy_summary(seeded, first + delayed_run) + "; history 16 " +
                         accuracy_summary(seeded, first + delayed_16_run) + "; history 1 " +
                         accuracy_summary(seeded, first + delayed_1_run) + ".");
  }
  r.findings.push_back("Delayed scaling's first step has no history and quantizes with scale 1, as TE does; with a "
                       "history of 1 the scale follows the previous step's amax, so a growing tensor clips; a "
                       "longer history keeps the largest amax seen and clips less, at the cost of resolution when "
                       "the tensor shrinks.");
  return r;
}

}  // namespace

experiment fp8_scaling_experiment() {
  return {"fp8-scaling",
          "FP8 per-tensor scaling: delayed (amax history 1024/16/1) vs current vs unscaled E4M3 vs fp32 on the "
          "tutorial conv and ResNet-8",
          false, &run};
}

}  // namespace numlab::experiments
