// amp-recipe: the PyTorch AMP recipe's remaining claims. Which ops autocast
// runs in fp16 and which in fp32 (and that backward follows the forward's
// choice), read per op from a training trace of the tutorial conv and
// ResNet-8; clipping after unscale_ at the unscaled gradients' norm;
// gradient accumulation with the scale and its skips at effective-batch
// granularity; and GradScaler's growth after 2000 clean steps.
#include <algorithm>
#include <cmath>
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

constexpr const char* recipe = "PyTorch recipe: Automatic Mixed Precision";
constexpr const char* grad_scaler_doc = "torch.cuda.amp.GradScaler docstring (torch 1.13, grad_scaler.py)";

// --- autocast op lists ---------------------------------------------------------

/// The format of one op's tensor of `role` in a run ("-" where it produced none).
std::string format_of(const training_run& run, const op_format& op, lab::tensor_role role) {
  for (const op_format& f : run.formats) {
    if (f.role == role && f.layer == op.layer && f.op == op.op) return f.format;
  }
  return "-";
}

/// The ops of one run: one row per op that produced a forward output.
void add_op_rows(table& t, const std::string& model, const training_run& run) {
  for (const op_format& f : run.formats) {
    if (f.role != lab::tensor_role::activation) continue;
    t.add_row({model, f.layer, f.op, std::string(lab::op_class_name(f.op_class)), f.format,
               format_of(run, f, lab::tensor_role::grad_input), format_of(run, f, lab::tensor_role::grad_weight)});
  }
}

/// "3 of 3 (conv1 fp16, ...)" over the forward outputs of the ops `pick` selects.
struct op_tally {
  std::size_t held = 0, total = 0;
  std::string listed;
};

template <class Pick, class Holds>
op_tally tally_ops(const named_runs& runs, Pick pick, Holds holds) {
  op_tally t;
  for (const auto& [name, run] : runs) {
    for (const op_format& f : run.formats) {
      if (f.role != lab::tensor_role::activation || !pick(name, f)) continue;
      ++t.total;
      if (holds(run, f)) {
        ++t.held;
      } else {
        t.listed += (t.listed.empty() ? "" : ", ") + name + " " + f.layer + " (" + f.op + ") " + f.format;
      }
    }
  }
  return t;
}

std::string describe(const op_tally& t, const std::string& what) {
  return std::to_string(t.held) + " of " + std::to_string(t.total) + " " + what +
         (t.listed.empty() ? "" : "; not: " + t.listed);
}

/// The claim's row, holding when `holds` holds for every op `pick` selects (and there is one).
template <class Pick, class Holds>
reference_check every_op(const named_runs& runs, const claim& c, const std::string& what, Pick pick, Holds holds) {
  const op_tally t = tally_ops(runs, pick, holds);
  return check_claim(c, describe(t, what), t.total > 0 && t.held == t.total);
}

bool is_gemm(const op_format& f) { return f.op == "conv2d" || f.op == "dense"; }
bool is_loss(const op_format& f) { return f.op_class == lab::op_class::loss; }
bool is_elementwise(const op_format& f) { return f.op_class == lab::op_class::elementwise; }

void add_autocast_checks(experiment_result& r, const named_runs& runs) {
  r.checks.push_back(every_op(
      runs,
      {"forward output format of every conv2d and dense (linear) op, both models", recipe,
       "__matmul__, addbmm, bmm, chain_matmul, multi_dot, conv1d, conv2d, conv3d,  GRUCell, linear, LSTMCell, "
       "matmul, mm, mv, prelu, RNNCell",
       "every one held in fp16", "some matmul/conv op ran outside fp16"},
      "in fp16", [](const std::string&, const op_format& f) { return is_gemm(f); },
      [](const training_run&, const op_format& f) { return f.format == "fp16"; }));
  r.checks.push_back(every_op(
      runs,
      {"format of the softmax cross-entropy loss and its gradient, both models", recipe,
       "binary_cross_entropy_with_logits, cosine_similarity, cross_entropy, cumsum, dist, l1_loss, layer_norm, log, "
       "log_softmax, mse_loss, nll_loss, norm, normalize,pow, prod, soft_margin_loss, softmax, softmin, softplus, sum",
       "loss and its input gradient in fp32", "the loss ran outside fp32"},
      "in fp32", [](const std::string&, const op_format& f) { return is_loss(f); },
      [](const training_run& run, const op_format& f) {
        return f.format == "fp32" && format_of(run, f, lab::tensor_role::grad_input) == "fp32";
      }));
  // Hand-derived expectation: in the conv model every elementwise op (relu,
  // flatten) reads an fp16 conv output; in ResNet-8 every one reads a batch
  // norm's fp32 output (relu after bn, the residual add of two bn outputs or
  // of a bn output and an fp32 block input, pooling after relu).
  r.checks.push_back(every_op(
      runs,
      {"format of every elementwise op (relu, flatten, residual add, pooling), both models", recipe,
       "If all of the inputs are float16, the op runs in float16. If any of the inputs is float32, autocast casts "
       "all inputs to float32 and runs the op in float32.",
       "conv model: all fp16 (inputs from fp16 convs); ResNet-8: all fp32 (each has an fp32 batch-norm output "
       "among its inputs)",
       "some elementwise op did not take the widest format of its inputs"},
      "as expected", [](const std::string&, const op_format& f) { return is_elementwise(f); },
      [](const training_run& run, const op_format& f) {
        const bool resnet = std::any_of(run.formats.begin(), run.formats.end(),
                                        [](const op_format& g) { return g.op == "batch_norm"; });
        return f.format == (resnet ? "fp32" : "fp16");
      }));
  r.checks.push_back(every_op(
      runs,
      {"format of each op's input gradient vs its forward output, both models", recipe,
       "Backward ops run in the same ``dtype`` ``autocast`` chose for corresponding forward ops.",
       "equal for every op that produces an input gradient", "some backward op ran in another format"},
      "ops alike", [](const std::string&, const op_format&) { return true; },
      [](const training_run& run, const op_format& f) {
        const std::string g = format_of(run, f, lab::tensor_role::grad_input);
        return g == "-" || g == f.format;
      }));
}

// --- clipping, accumulation, growth (the recipe's MLP) -----------------------------

// The recipe's lr 0.001 barely moves the short runs: 0.1, and 1 for the
// clipping runs, where only the clip keeps SGD from diverging (so a clip at
// the scaled gradients' norm would stall training). The growth run keeps 0.001.
constexpr double recipe_lr = 0.001;
constexpr double clipped_lr = 1.0;
constexpr double plain_lr = 0.1;

lab::train_config mlp_config(const run_options& options, const training_sizes& sizes, std::size_t width,
                             std::size_t batch, double lr) {
  lab::train_config c = sized_config(options, sizes);
  c.model = "mlp";
  c.hidden = {width, width};
  c.dataset = "synthetic";
  c.loss = "mse";
  c.batch_size = batch;
  c.optimizer = "sgd";
  c.lr = lr;
  return c;
}

enum mlp_run : std::size_t { fp32_clip_run, amp_clip_run, amp_batch_run, amp_accumulate_run };

constexpr double max_norm = 0.1;            // the recipe's clip_grad_norm_ max_norm
constexpr std::size_t accumulate = 4;       // iters_to_accumulate
constexpr const char* overflowing_scale = "4294967296";  // 2^32: the first updates overflow fp16

named_runs train_mlp_runs(const lab::train_config& base, const lab::train_data& data) {
  named_runs runs;
  lab::train_config clipped = base;
  clipped.clip_norm = max_norm;
  clipped.lr = clipped_lr;
  train_into(runs, "fp32, lr 1, clip 0.1", with_precision(clipped, "fp32"), data);
  train_into(runs, "autocast fp16 + GradScaler, lr 1, unscale_ then clip 0.1",
             with_precision(clipped, "fp16-mixed", {{"loss_scaling", "dynamic"}}), data);
  const std::vector<std::pair<std::string, std::string>> from_overflow{{"loss_scaling", "dynamic"},
                                                                       {"loss_scale", overflowing_scale}};
  train_into(runs, "autocast fp16 + GradScaler from 2^32, batch " + std::to_string(base.batch_size),
             with_precision(base, "fp16-mixed", from_overflow), data);
  lab::train_config micro = base;
  micro.batch_size = base.batch_size / accumulate;
  micro.accumulate = accumulate;
  train_into(runs,
             "autocast fp16 + GradScaler from 2^32, " + std::to_string(accumulate) + " x batch " +
                 std::to_string(micro.batch_size) + " accumulated",
             with_precision(micro, "fp16-mixed", from_overflow), data);
  return runs;
}

void add_clip_checks(experiment_result& r, const seeded_runs& seeded) {
  const training_run& fp32 = seeded.first()[fp32_clip_run].second;
  const training_run& amp = seeded.first()[amp_clip_run].second;
  const claim c{"global gradient norm the clip sees at step 0 (same initial weights), fp16 + GradScaler vs fp32",
                recipe,
                "Since the gradients of optimizer's assigned parameters are now unscaled, clips as usual. You may use "
                "the same value for max_norm here as you would without gradient scaling.",
                "relative difference <= 1% while the loss scale is 65536",
                "the clip saw another norm than fp32's"};
  if (amp.steps.empty() || fp32.steps.empty() || amp.steps.front().skipped) {
    r.checks.push_back(not_decided(c, "-", "step 0 of the fp16 run was skipped or missing"));
  } else {
    const double a = amp.steps.front().grad_norm, b = fp32.steps.front().grad_norm;
    const double relative = std::fabs(a - b) / b;
    r.checks.push_back(check_claim(c,
                                   "fp16 " + significant(a, 6) + " at scale " +
                                       significant(amp.steps.front().loss_scale, 6) + ", fp32 " + significant(b, 6) +
                                       " (" + fixed(100.0 * relative, 3) + "% apart)",
                                   relative <= 0.01));
  }
  r.checks.push_back(compare_accuracies(
      {"test accuracy, fp16 + GradScaler with clipping after unscale_ vs fp32 with the same clipping", recipe,
       "You may use the same value for max_norm here as you would without gradient scaling.",
       "95% interval of the mean paired difference (by seed) within [-2, 2] points",
       "clipping after unscale_ did not train like fp32's clipping"},
      seeded, amp_clip_run, fp32_clip_run, accuracy_claim::within, 0.02));
}

void add_accumulation_checks(experiment_result& r, const seeded_runs& seeded) {
  const training_run& acc = seeded.first()[amp_accumulate_run].second;
  const claim c{"loss scale of update 1 after update 0 of the accumulating run overflowed (first seed)", recipe,
                "The scale should be calibrated for the effective batch, which means inf/NaN checking, step skipping "
                "if inf/NaN grads are found, and scale updates should occur at effective-batch granularity.",
                "update 0 skipped and update 1's scale = update 0's x 0.5 (one back-off per effective batch of " +
                    std::to_string(accumulate) + " micro-batches, not one per micro-batch)",
                "the scale changed per micro-batch"};
  if (acc.steps.size() < 2 || !acc.steps[0].skipped) {
    r.checks.push_back(not_decided(c, acc.steps.empty() ? "-" : "update 0 not skipped",
                                   "the 2^32 start did not overflow, so there was no back-off to observe"));
  } else {
    const double s0 = acc.steps[0].loss_scale, s1 = acc.steps[1].loss_scale;
    r.checks.push_back(check_claim(c,
                                   "update 0: scale " + significant(s0, 10) + ", skipped; update 1: scale " +
                                       significant(s1, 10) + " (" + std::to_string(acc.steps.size()) + " updates)",
                                   s1 == 0.5 * s0));
  }
  r.checks.push_back(compare_accuracies(
      {"test accuracy, " + std::to_string(accumulate) + " accumulated micro-batches vs one batch of their total size",
       recipe,
       "Gradient accumulation adds gradients over an effective batch of size batch_per_iter * iters_to_accumulate",
       "95% interval of the mean paired difference (by seed) within [-2, 2] points",
       "accumulation did not train like the large batch"},
      seeded, amp_accumulate_run, amp_batch_run, accuracy_claim::within, 0.02));
}

/// Clean (not skipped) steps between each growth of the scale and the
/// change before it (or the start).
struct growth {
  std::uint64_t step = 0;
  std::size_t clean_before = 0;
  double from = 0, to = 0;
};

std::vector<growth> growths(const training_run& run) {
  std::vector<growth> out;
  std::size_t clean = 0;
  for (std::size_t i = 0; i < run.steps.size(); ++i) {
    if (i > 0 && run.steps[i].loss_scale != run.steps[i - 1].loss_scale) {
      if (run.steps[i].loss_scale > run.steps[i - 1].loss_scale)
        out.push_back({run.steps[i].step, clean, run.steps[i - 1].loss_scale, run.steps[i].loss_scale});
      clean = 0;
    }
    clean += run.steps[i].skipped ? 0 : 1;
  }
  return out;
}

table growth_table(const training_run& run, std::size_t interval) {
  table t("growth", "GradScaler growth (interval " + std::to_string(interval) + "): every step where the scale grew",
          {"step", "clean steps since the previous change", "scale before", "scale after"});
  for (const growth& g : growths(run))
    t.add_row({std::to_string(g.step), std::to_string(g.clean_before), significant(g.from, 10), significant(g.to, 10)});
  return t;
}

reference_check growth_check(const training_run& run, std::size_t interval) {
  const std::vector<growth> all = growths(run);
  std::string measured = std::to_string(all.size()) + " growth(s) in " + std::to_string(run.steps.size()) +
                         " steps, " + std::to_string(run.skipped_steps()) + " skipped";
  bool exact = !all.empty();
  for (const growth& g : all) {
    measured += "; step " + std::to_string(g.step) + " after " + std::to_string(g.clean_before) + " clean steps";
    exact = exact && g.clean_before == interval && g.to == 2.0 * g.from;
  }
  const claim c{"clean steps before each growth of the scale, autocast fp16 MLP with default GradScaler",
                grad_scaler_doc,
                "growth_interval (int, optional, default=2000):  Number of consecutive iterations without inf/NaN "
                "gradients that must occur for the scale to be multiplied by ``growth_factor``.",
                "at least one growth, each exactly " + std::to_string(interval) +
                    " clean steps after the previous change, each doubling the scale",
                "the scale grew after another count, or never"};
  if (interval != 2000) return not_decided(c, measured, "the tiny run uses interval " + std::to_string(interval));
  return check_claim(c, measured, exact);
}

experiment_result run(const run_options& options) {
  // The op census: two updates of each model under autocast fp16.
  lab::train_config small = sized_config(options, {64, 32, 1});
  small.trace.db.clear();
  small.max_steps = 2;
  small.batch_size = 32;
  named_runs op_runs;
  for (const auto& [label, model] : {std::pair{"conv", "tutorial_conv"}, std::pair{"ResNet-8", "resnet"}}) {
    lab::train_config c = small;
    c.model = model;
    c.depth = 8;
    train_into(op_runs, label, with_precision(c, "fp16-mixed"), lab::load_data(c));
  }

  const training_sizes sizes = pick_sizes(options, {256, 64, 1}, {2048, 512, 2}, {8192, 2048, 3});
  const std::size_t width = options.tiny ? 32 : 128;
  const lab::train_config base = mlp_config(options, sizes, width, 64, plain_lr);
  const lab::train_data data = lab::load_data(base);
  const seeded_runs seeded =
      train_seeds(options, base, [&](const lab::train_config& c) { return train_mlp_runs(c, data); });

  // Growth: a small MLP at batch 8 for more than 2000 updates (4000+ at --full).
  const std::size_t interval = options.tiny ? 8 : 2000;
  const training_sizes long_sizes = pick_sizes(options, {256, 64, 1}, {2048, 512, 9}, {2048, 512, 17});
  lab::train_config long_config = mlp_config(options, long_sizes, 32, 8, recipe_lr);
  long_config.trace.db.clear();
  named_runs growth_runs;
  train_into(growth_runs, "autocast fp16 + GradScaler() defaults",
             with_precision(long_config, "fp16-mixed",
                            {{"loss_scaling", "dynamic"}, {"loss_scale_interval", std::to_string(interval)}}),
             lab::load_data(long_config));
  const training_run& long_run = growth_runs.front().second;

  experiment_result r;
  r.settings = {
      "op formats: the tutorial conv and ResNet-8 under numlab's autocast fp16 (fp16-mixed: conv and dense in "
      "fp16, loss, norm and optimizer fp32, elementwise ops take the widest input format), two updates of batch 32 "
      "on Fashion-MNIST; each op's format read from the trace the first time it produced a tensor",
      describe_sizes(sizes, "synthetic 28x28 images of 10 classes") +
          ": MLP 784 - " + std::to_string(width) + " - " + std::to_string(width) +
          " - 10 with ReLU, MSE, plain SGD (the recipe's structure at CPU size; its lr 0.001 barely moves these "
          "short runs, so lr 0.1, and lr 1 for the clipping runs, where only the clip keeps SGD from diverging), "
          "batch 64, one BLAS thread; every run at " + std::to_string(seeded.seeds.size()) + " seed(s)",
      "clipping: clip_norm 0.1 applied after unscaling (the trainer's order: unscale, clip, step unless inf/NaN); "
      "accumulation: " + std::to_string(accumulate) + " micro-batches of 16 per update against batch 64, both "
      "starting from a scale of 2^32 so that the first updates overflow and skip",
      "growth: MLP 784 - 32 - 32 - 10 at batch 8, SGD lr 0.001 (the recipe's), for " +
          std::to_string(long_run.steps.size()) +
          " updates with GradScaler's defaults (65536, x2 after " + std::to_string(interval) +
          " clean steps, x0.5 on inf/NaN)"};
  table ops("op-formats", "Format of each op's forward output, input gradient and weight gradient (autocast fp16)",
            {"model", "layer", "op", "op class", "forward", "grad_input", "grad_weight"});
  for (const auto& [label, run] : op_runs) add_op_rows(ops, label, run);
  r.tables.push_back(std::move(ops));
  r.tables.push_back(accuracy_over_seeds_table("accuracy-over-seeds", seeded));
  r.tables.push_back(outcome_table("outcome", "MLP runs after the last epoch (seed " +
                                                  std::to_string(seeded.seeds.front()) + ")",
                                   seeded.first()));
  r.tables.push_back(trajectory_table("accumulation-scale", seeded.first()[amp_accumulate_run].second, 20));
  r.tables.push_back(growth_table(long_run, interval));

  add_autocast_checks(r, op_runs);
  add_clip_checks(r, seeded);
  add_accumulation_checks(r, seeded);
  r.checks.push_back(growth_check(long_run, interval));
  r.findings = {
      "Batch norm is in neither of the recipe's lists; numlab's autocast keeps it in fp32 (op class norm), which "
      "is why every ResNet-8 elementwise op runs in fp32.",
      "From 2^32 the batch-64 run skipped " + std::to_string(seeded.first()[amp_batch_run].second.skipped_steps()) +
          " updates and the accumulating run " +
          std::to_string(seeded.first()[amp_accumulate_run].second.skipped_steps()) +
          ": one back-off per effective batch in both."};
  return r;
}

}  // namespace

experiment amp_recipe_experiment() {
  return {"amp-recipe",
          "PyTorch AMP recipe: autocast op lists per op, clipping after unscale_, gradient accumulation with "
          "GradScaler, growth after 2000 clean steps",
          false, &run};
}

}  // namespace numlab::experiments
