// nan-on-overflow: the Graphcore tutorial's floating-point behaviour options
// (set_floating_point_behaviour_options: nanoo, oflo) on a run that
// overflows: the tutorial conv model in pure fp16 with a static loss scale
// of 65536, so the scaled gradients pass fp16's 65504. The same run with
// overflow to NaN (nanoo=True), to the largest finite value (nanoo=False,
// saturation), to inf (IEEE 754's default), and with an overflow trap (oflo).
#include <string>
#include <utility>
#include <vector>

#include "experiments/experiment.hpp"
#include "experiments/printing.hpp"
#include "experiments/reference.hpp"
#include "experiments/training.hpp"

namespace numlab::experiments {
namespace {

constexpr const char* graphcore = "Graphcore TF1 fp16 tutorial (Diagnosing numerical issues)";

enum run_index : std::size_t { nan_run, saturate_run, ieee_run, trap_run };

named_runs train_all(const lab::train_config& c, const lab::train_data& data) {
  const std::vector<std::pair<std::string, std::string>> scaled{{"loss_scaling", "static"}, {"loss_scale", "65536"}};
  const auto with = [&](std::pair<std::string, std::string> extra) {
    auto all = scaled;
    all.push_back(std::move(extra));
    return with_precision(c, "fp16", all);
  };
  named_runs runs;
  train_into(runs, "nanoo=True (overflow gives NaN)", with({"overflow", "nan"}), data);
  train_into(runs, "nanoo=False (overflow saturates to 65504)", with({"overflow", "saturate"}), data);
  train_into(runs, "IEEE 754 default (overflow gives inf)", with({"overflow", "ieee"}), data);
  train_into(runs, "oflo=True (overflow stops the run)", with({"traps", "overflow"}), data);
  return runs;
}

/// The first non-finite value a run met: the failure, else the first skip reason.
std::string first_trouble(const training_run& run) {
  for (const auto& s : run.steps) {
    if (s.skipped) return "step " + std::to_string(s.step) + " skipped: " + s.skip_reason;
  }
  return run.failure.empty() ? "none" : run.failure;
}

bool mentions(const std::string& text, const std::string& word) { return text.find(word) != std::string::npos; }

table trouble_table(const named_runs& runs) {
  table t("first-trouble", "What each run met first (first seed)",
          {"run", "stopped", "skipped steps", "first non-finite value or stop"});
  for (const auto& [name, run] : runs)
    t.add_row({name, run.stopped() ? "yes" : "no", std::to_string(run.skipped_steps()), first_trouble(run)});
  return t;
}

experiment_result run(const run_options& options) {
  const training_sizes sizes = pick_sizes(options, {64, 64, 1}, {320, 200, 1}, {0, 0, 1});
  const lab::train_config base = tutorial_conv_config(options, sizes);
  const lab::train_data data = lab::load_data(base);
  const seeded_runs seeded =
      train_seeds(options, base, [&](const lab::train_config& c) { return train_all(c, data); });
  const named_runs& runs = seeded.first();
  experiment_result r;
  r.settings = {describe_sizes(sizes, "Fashion-MNIST (first images of each split)"),
                "model conv3x3x32 - relu - conv3x3x32 - flatten - dense10, batch 32, Adam lr 0.01 eps 1e-4, one "
                "BLAS thread; every run at " + std::to_string(seeded.seeds.size()) + " seed(s)",
                "pure fp16 (every op, weights and Adam's state in fp16, nearest-even) with a static loss scale of "
                "65536, which overflows fp16 in the scaled gradients; the runs differ only in what an overflowing "
                "rounding gives (lab's overflow = nan | saturate | ieee) or whether it stops the run (traps = "
                "overflow)"};
  r.tables.push_back(trouble_table(runs));
  r.tables.push_back(accuracy_over_seeds_table("accuracy-over-seeds", seeded));
  r.tables.push_back(outcome_table("accuracy", "Test accuracy after the last epoch (first seed)", runs));

  const training_run& nan = runs[nan_run].second;
  const training_run& saturate = runs[saturate_run].second;
  const training_run& trap = runs[trap_run].second;
  r.checks.push_back(check_claim(
      {"nanoo=True run (first seed): the first non-finite value it met", graphcore,
       "Setting `nanoo=True` will enable \"NaN on overflow\" mode, in which case operations that overflow return "
       "`NaN`.",
       "the run meets a NaN (a skipped step or stop naming nan) and no inf", "the overflow did not show as NaN"},
      first_trouble(nan),
      (nan.stopped() || nan.skipped_steps() > 0) && mentions(first_trouble(nan), "nan") &&
          !mentions(first_trouble(nan), "inf")));
  r.checks.push_back(check_claim(
      {"nanoo=False run (first seed): non-finite values met", graphcore,
       "If you set `nanoo=False`, overflowing operations will \"saturate\", which means that they will return the "
       "highest representable number in FP16",
       "the run meets no inf or NaN: it neither stops nor skips a step", "a non-finite value appeared anyway"},
      first_trouble(saturate), !saturate.stopped() && saturate.skipped_steps() == 0));
  r.checks.push_back(check_claim(
      {"oflo=True run (first seed): how it ended", graphcore,
       "Setting `oflo`, `div0`, and `inv` to `True` will cause the floating-point unit to raise exceptions and stop "
       "execution on overflows",
       "the run stops with an error naming an overflow", "the trap did not stop the run on the overflow"},
      trap.stopped() ? trap.failure : "finished", trap.stopped() && mentions(trap.failure, "overflow")));
  r.findings = {"What saturation costs: " + accuracy_summary(seeded, saturate_run) +
                " test accuracy with nanoo=False; with nanoo=True the run " +
                (nan.stopped() ? "stopped (" + nan.failure + ")" : "finished") + " at the first seed.",
                "Under IEEE 754's default the overflow gives inf, and inf - inf in the next operations gives NaN, so "
                "that run " + std::string(runs[ieee_run].second.stopped() ? "also ends in NaN" : "did not stop") +
                ": at the level of a run, nanoo=True differs from the default only in how soon the NaN appears."};
  return r;
}

}  // namespace

experiment nan_on_overflow_experiment() {
  return {"nan-on-overflow",
          "pure fp16 with a loss scale that overflows: NaN on overflow (nanoo) vs saturation vs inf vs an overflow "
          "trap (oflo)",
          false, &run};
}

}  // namespace numlab::experiments
