// amp-mlp: the PyTorch AMP recipe scaled to a CPU: an MLP of 3 linear layers
// with ReLU, MSE loss and plain SGD (lr 0.001) on synthetic data, in fp32,
// autocast fp16 with a dynamic GradScaler, and autocast bf16: loss curve,
// skipped steps, the scale's trajectory, and what the emulation costs.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "experiments/experiment.hpp"
#include "experiments/printing.hpp"
#include "experiments/reference.hpp"
#include "experiments/training.hpp"

namespace numlab::experiments {
namespace {

constexpr const char* pytorch = "PyTorch recipe: Automatic Mixed Precision";

lab::train_config mlp_config(const run_options& options, const training_sizes& sizes, std::size_t width) {
  lab::train_config c = sized_config(options, sizes);
  c.model = "mlp";
  c.hidden = {width, width};
  c.dataset = "synthetic";
  c.loss = "mse";
  c.batch_size = 64;
  c.optimizer = "sgd";
  c.lr = 0.001;
  return c;
}

/// Mean training loss of each block of `every` steps, one column per run.
table loss_curve_table(const named_runs& runs, std::size_t every) {
  std::vector<std::string> columns{"steps"};
  std::size_t steps = 0;
  for (const auto& [name, run] : runs) {
    columns.push_back(name);
    steps = std::max(steps, run.steps.size());
  }
  table t("loss-curve", "Mean training loss over each block of " + std::to_string(every) + " steps", columns);
  for (std::size_t begin = 0; begin < steps; begin += every) {
    const std::size_t end = std::min(steps, begin + every);
    std::vector<std::string> row{std::to_string(begin) + "-" + std::to_string(end - 1)};
    for (const auto& [name, run] : runs) {
      double sum = 0;
      std::size_t n = 0;
      for (std::size_t s = begin; s < std::min(end, run.steps.size()); ++s, ++n) sum += run.steps[s].loss;
      row.push_back(n == 0 ? "-" : loss_cell(sum / static_cast<double>(n)));
    }
    t.add_row(std::move(row));
  }
  return t;
}

table overhead_table(const named_runs& runs) {
  table t("time", "Wall time of training (one thread), relative to fp32",
          {"run", "wall time (s)", "time / fp32's time", "wall time per step (s)"});
  const double fp32 = runs.front().second.seconds;
  for (const auto& [name, run] : runs) {
    const double steps = static_cast<double>(std::max<std::size_t>(run.steps.size(), 1));
    t.add_row({name, fixed(run.seconds, 3), fixed(run.seconds / fp32, 2), significant(run.seconds / steps, 3)});
  }
  return t;
}

experiment_result run(const run_options& options) {
  const training_sizes sizes = pick_sizes(options, {256, 64, 1}, {4096, 512, 3}, {16384, 2048, 3});
  const std::size_t width = options.tiny ? 64 : 512;
  const lab::train_config base = mlp_config(options, sizes, width);
  const lab::train_data data = lab::load_data(base);
  const seeded_runs seeded = train_seeds(options, base, [&](const lab::train_config& c) {
    named_runs runs;
    train_into(runs, "fp32", with_precision(c, "fp32"), data);
    train_into(runs, "autocast fp16 + GradScaler", with_precision(c, "fp16-mixed", {{"loss_scaling", "dynamic"}}),
               data);
    train_into(runs, "autocast bf16", with_precision(c, "bf16-mixed"), data);
    return runs;
  });
  const named_runs& runs = seeded.first();
  const std::string first_seed = " (seed " + std::to_string(seeded.seeds.front()) + ")";

  experiment_result r;
  r.settings = {describe_sizes(sizes, "synthetic 28x28 images of 10 classes (lab's learnable synthetic set)") +
                    ", batch 64",
                "MLP 784 - " + std::to_string(width) + " - " + std::to_string(width) +
                    " - 10 (3 linear layers, ReLU between), MSE against one-hot targets, SGD lr 0.001, one BLAS "
                    "thread; every run at " + std::to_string(seeded.seeds.size()) +
                    " seed(s) (initialisation and data order; the data set is drawn once, from the first seed), "
                    "the loss curve, scale and time tables at the first",
                "the recipe's sizes (4096 wide, batch 512, random regression targets) are GPU sizes; this keeps "
                "its structure (3 linear, ReLU, MSE, SGD 0.001) at CPU size" +
                    std::string(options.full ? "" : "; --full: 16384 training images, 3 epochs"),
                "autocast: dense computes in the format (fp32 partials), MSE and master weights fp32; GradScaler "
                "defaults (65536, x2 after 2000 clean steps, x0.5 and skip on inf/NaN); bf16 without a scaler"};
  r.tables.push_back(accuracy_over_seeds_table("accuracy-over-seeds", seeded));
  r.tables.push_back(loss_curve_table(runs, options.tiny ? 1 : 16));
  r.tables.push_back(
      outcome_table("outcome", "Test accuracy and loss after the last epoch, skipped steps" + first_seed, runs));
  r.tables.push_back(trajectory_table("grad-scaler", runs[1].second, options.tiny ? 8 : 40));
  r.tables.push_back(overhead_table(runs));

  const double ratio = runs[1].second.seconds / runs[0].second.seconds;
  r.findings = {"GradScaler skipped " + std::to_string(runs[1].second.skipped_steps()) + " of " +
                    std::to_string(runs[1].second.steps.size()) + " steps: " +
                    (runs[1].second.skipped_steps() == 0
                         ? "MSE gradients of this small model times 65536 stay below fp16's 65504."
                         : "the 65536 start overflowed fp16 gradients until the scale backed off."),
                "Emulated fp16 takes " + fixed(ratio, 2) + "x fp32's time and bf16 " +
                    fixed(runs[2].second.seconds / runs[0].second.seconds, 2) +
                    "x (wall time, one thread; other load on the machine inflates it): every tensor passes through "
                    "libnum's rounding kernels, and there are no fp16 units."};
  r.checks.push_back(check_time_ratio(
      {"training wall time, autocast fp16 / fp32", pytorch,
       "Mixed precision primarily benefits Tensor Core-enabled architectures (Volta, Turing, Ampere). This "
       "recipe should show significant (2-3X) speedup on those architectures.",
       "time ratio <= 0.5 at every seed",
       "numlab emulates fp16 on fp32 hardware: rounding adds work, so it is slower, not faster; the recipe's "
       "speedup comes from Tensor Cores"},
      seeded, 1, 0, 0.5));
  return r;
}

}  // namespace

experiment amp_mlp_experiment() {
  return {"amp-mlp",
          "PyTorch AMP recipe at CPU size: 3-layer MLP, MSE, SGD in fp32 vs autocast fp16 + GradScaler vs bf16",
          true, &run};
}

}  // namespace numlab::experiments
