// Training runs for the training experiments: sizes, configs, a tracer that
// counts what the precision policy stored, and the tables every training
// experiment shares.
#include "experiments/training.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <thread>

#include <lab/errors.hpp>
#include <lab/precision_hook.hpp>
#include <lab/run_recorder.hpp>
#include <lab/version.hpp>

#include "experiments/printing.hpp"
#include "experiments/reference.hpp"

namespace numlab::experiments {
namespace {

/// fp16's smallest normal, 2^-14: nonzero values below it are subnormal.
constexpr float fp16_min_normal = 6.103515625e-05f;

/// Steps of a recorded run whose tensor statistics go into its run database.
constexpr std::size_t traced_steps_per_run = 100;

template <class Census>
Census& entry_for(std::vector<std::pair<std::string, Census>>& entries, std::string_view layer) {
  for (auto& [name, census] : entries) {
    if (name == layer) return census;
  }
  return entries.emplace_back(std::string(layer), Census{}).second;
}

/// Chained after the precision policy (or alone in fp32): counts gradient
/// zeros, underflows and subnormals and swamped updates per layer, and
/// collects steps and epoch reports (which survive a diverging run). Every
/// call is passed on to a run database's recorder when one is chained.
class training_tracer final : public lab::tensor_hook, public lab::step_observer {
 public:
  explicit training_tracer(training_run& out) : out_(out) {}

  /// Passes every tensor and step on to `recorder` (not owned; may be null).
  void chain(lab::run_recorder* recorder) {
    recorder_ = recorder;
    next_ = recorder != nullptr ? recorder->context().hook() : nullptr;
  }

  /// The trainer's policy hook, whose conversion counts give underflows.
  void watch(lab::precision_hook* policy) {
    policy_ = policy;
    if (policy_ != nullptr) policy_->set_counting(true);
  }

  void produce(const lab::site& where, lab::tensor_role role, std::span<float> values,
               lab::unrounded_values unrounded) override {
    if (next_ != nullptr) next_->produce(where, role, values, unrounded);
    if (role == lab::tensor_role::activation) {
      note_format(where, role);
      if (where.op_class == lab::op_class::norm && where.tensor == "squares") {
        out_.norm_squares.squares += values.size();
        for (const float v : values) out_.norm_squares.infinite += std::isinf(v) ? 1 : 0;
      }
    }
    if (role != lab::tensor_role::grad_weight && role != lab::tensor_role::grad_input) return;
    note_format(where, role);
    // Under a policy, only gradients it holds in a low format are counted;
    // in fp32 runs every gradient is (as what fp16 would make of it).
    if (policy_ != nullptr && !policy_->format_of(where, role)) return;
    gradient_census& c = entry_for(out_.gradients, where.layer);
    c.elements += values.size();
    for (const float v : values) {
      const float a = std::fabs(v);
      c.zeros += a == 0.0f ? 1 : 0;
      c.subnormal += (a > 0.0f && a < fp16_min_normal) ? 1 : 0;
    }
    if (policy_ != nullptr) {
      // The policy rounded this tensor just before calling us, so the growth
      // of its counter since the previous gradient is this tensor's.
      const auto& counts = policy_->tally().by_role[static_cast<std::size_t>(role)];
      std::uint64_t& seen = role == lab::tensor_role::grad_weight ? seen_weight_ : seen_input_;
      c.underflow_to_zero += counts.underflow_to_zero - seen;
      seen = counts.underflow_to_zero;
    }
  }

  std::span<const float> weight(const lab::site& where, std::span<const float> master,
                                lab::unrounded_values unrounded) override {
    return next_ != nullptr ? next_->weight(where, master, unrounded) : master;
  }

  std::span<const float> operand(const lab::site& where, lab::tensor_role role, std::span<const float> values,
                                 lab::unrounded_values unrounded) override {
    return next_ != nullptr ? next_->operand(where, role, values, unrounded) : values;
  }

  void update(const lab::site& where, std::span<float> weight, const lab::weight_step& step) override {
    lab::apply_decay_fp32(weight, step.keep);
    before_.assign(weight.begin(), weight.end());
    delta_.resize(weight.size());
    lab::requested_delta(step, delta_);
    lab::apply_step_fp32(weight, {step.direction, step.scale});
    observe_update(where, before_, delta_, weight);
  }

  void observe_update(const lab::site& where, std::span<const float> before, std::span<const float> delta,
                      std::span<const float> after) override {
    if (next_ != nullptr) next_->observe_update(where, before, delta, after);
    update_census& c = entry_for(out_.updates, where.layer);
    for (std::size_t i = 0; i < delta.size(); ++i) {
      const bool moved = delta[i] != 0.0f;
      c.nonzero_delta += moved ? 1 : 0;
      c.swamped += (moved && after[i] == before[i]) ? 1 : 0;
    }
  }

  void observe_quantized(const lab::site& where, const lab::quantized_operand& q) override {
    if (next_ != nullptr) next_->observe_quantized(where, q);
    entry_for(out_.quantized, where.layer)[static_cast<std::size_t>(q.operand)].add(q);
  }

  void on_step_begin(std::uint64_t step) override {
    if (recorder_ != nullptr) recorder_->on_step_begin(step);
  }
  void on_step(const lab::step_info& info) override {
    if (recorder_ != nullptr) recorder_->on_step(info);
    out_.steps.push_back(info);
  }
  void on_evaluation(bool running) override {
    if (recorder_ != nullptr) recorder_->on_evaluation(running);
  }
  void on_epoch(const lab::epoch_report& report) override {
    if (recorder_ != nullptr) recorder_->on_epoch(report);
    out_.epochs.push_back(report);
  }

 private:
  void note_format(const lab::site& where, lab::tensor_role role) {
    for (const op_format& f : out_.formats) {
      if (f.role == role && f.layer == where.layer && f.op == where.op) return;
    }
    const std::optional<num::format> f = policy_ != nullptr ? policy_->format_of(where, role) : std::nullopt;
    out_.formats.push_back({std::string(where.layer), std::string(where.op), where.op_class, role,
                            f ? num::format_name(*f) : std::string("fp32")});
  }

  training_run& out_;
  lab::run_recorder* recorder_ = nullptr;
  lab::tensor_hook* next_ = nullptr;
  lab::precision_hook* policy_ = nullptr;
  std::uint64_t seen_weight_ = 0, seen_input_ = 0;
  std::vector<float> before_;
  std::vector<float> delta_;
};

/// "diverged: test loss is nan after epoch 2" when the last epoch's training
/// or test loss is not finite; empty otherwise.
std::string divergence_at_end(const std::vector<lab::epoch_report>& epochs) {
  if (epochs.empty()) return {};
  const lab::epoch_report& last = epochs.back();
  if (std::isfinite(last.train_loss) && std::isfinite(last.test.loss)) return {};
  const bool training = !std::isfinite(last.train_loss);
  return "diverged: " + std::string(training ? "training" : "test") + " loss is " +
         loss_cell(training ? last.train_loss : last.test.loss) + " after epoch " + std::to_string(last.epoch);
}

}  // namespace

training_sizes pick_sizes(const run_options& options, training_sizes tiny, training_sizes default_size,
                          training_sizes full) {
  return options.tiny ? tiny : options.full ? full : default_size;
}

std::string describe_sizes(const training_sizes& sizes, const std::string& data) {
  const auto count = [](std::size_t n) { return n == 0 ? std::string("all") : std::to_string(n); };
  return data + ": " + count(sizes.train_limit) + " training images, " + count(sizes.test_limit) +
         " test images, " + std::to_string(sizes.epochs) + " epoch(s)";
}

lab::train_config sized_config(const run_options& options, const training_sizes& sizes) {
  lab::train_config c;
  c.train_limit = sizes.train_limit;
  c.test_limit = sizes.test_limit;
  c.epochs = sizes.epochs;
  c.seed = options.seed;
  c.threads = 1;
  c.trace.db = options.run_database.string();
  return c;
}

lab::train_config with_precision(lab::train_config config, const std::string& preset,
                                 const std::vector<std::pair<std::string, std::string>>& refinements) {
  config.precision.preset = preset;
  for (const auto& [key, value] : refinements) {
    lab::set_precision_value(config.precision, key, value, "experiment");
  }
  return config;
}

void train_into(named_runs& runs, std::string name, const lab::train_config& config, const lab::train_data& data) {
  training_run out;
  training_tracer tracer(out);
  lab::train_config recorded = config;
  std::unique_ptr<lab::run_recorder> recorder;
  if (!config.trace.db.empty()) {
    const std::size_t batch = std::max<std::size_t>(1, config.batch_size);
    const std::size_t steps = (data.train.size() + batch - 1) / batch * config.epochs;
    recorded.trace.every = std::max<std::size_t>(1, steps / traced_steps_per_run);
    recorder = std::make_unique<lab::run_recorder>(recorded, name, std::string(lab::numlab_version()));
    tracer.chain(recorder.get());
  }
  const auto start = std::chrono::steady_clock::now();
  try {
    lab::trainer t(recorded, data, lab::op_context(&tracer));
    tracer.watch(t.precision());
    if (recorder) recorder->attach(t);
    t.set_observer(&tracer);
    t.run();
    if (t.precision() != nullptr) out.tally = t.precision()->tally();
    // The trainer stops on a non-finite training loss it sees; a NaN that
    // appears only in the last update shows in the evaluation instead, and
    // such a run is just as diverged: recorded as diverged, never scored.
    if (const std::string diverged = divergence_at_end(out.epochs); !diverged.empty())
      throw lab::training_diverged(diverged, out.steps.size());
    if (recorder) recorder->finish(rundb::run_status::finished);
  } catch (const std::exception& e) {
    out.failure = e.what();
    if (recorder) recorder->fail(e);
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  runs.emplace_back(std::move(name), std::move(out));
}

const update_census* training_run::updates_of(std::string_view layer) const {
  for (const auto& [name, c] : updates) {
    if (name == layer) return &c;
  }
  return nullptr;
}

std::size_t training_run::skipped_steps() const {
  std::size_t n = 0;
  for (const auto& s : steps) n += s.skipped ? 1 : 0;
  return n;
}

double training_run::final_accuracy() const {
  return stopped() || epochs.empty() ? std::numeric_limits<double>::quiet_NaN() : epochs.back().test.accuracy;
}

std::string percent_of(std::uint64_t part, std::uint64_t whole, int decimals) {
  const double fraction = whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole);
  return fixed(100.0 * fraction, decimals);
}

std::string loss_cell(double loss) { return std::isfinite(loss) ? fixed(loss, 4) : fixed(loss, 0); }

table loss_per_epoch_table(const std::string& id, const std::string& title,
                           std::span<const std::pair<std::string, training_run>> runs) {
  std::vector<std::string> columns{"epoch"};
  std::size_t epochs = 0;
  for (const auto& [name, run] : runs) {
    columns.push_back(name);
    epochs = std::max(epochs, run.epochs.size());
  }
  table t(id, title, columns);
  for (std::size_t e = 0; e < epochs; ++e) {
    std::vector<std::string> row{std::to_string(e + 1)};
    for (const auto& [name, run] : runs) {
      row.push_back(e < run.epochs.size() ? loss_cell(run.epochs[e].train_loss) : "stopped");
    }
    t.add_row(std::move(row));
  }
  return t;
}

table outcome_table(const std::string& id, const std::string& title,
                    std::span<const std::pair<std::string, training_run>> runs) {
  table t(id, title,
          {"run", "test accuracy (%)", "test loss", "steps", "skipped steps", "wall time (s)", "stopped by"});
  for (const auto& [name, run] : runs) {
    const bool trained = !run.epochs.empty() && !run.stopped();
    t.add_row({name, trained ? fixed(100.0 * run.final_accuracy(), 2) : "-",
               trained ? loss_cell(run.epochs.back().test.loss) : "-", std::to_string(run.steps.size()),
               std::to_string(run.skipped_steps()), fixed(run.seconds, 2),
               run.failure.empty() ? "-" : run.failure});
  }
  return t;
}

table trajectory_table(const std::string& id, const training_run& run, std::size_t limit) {
  const auto& steps = run.steps;
  const auto notable = [&](std::size_t i) {
    return steps[i].skipped || (i > 0 && steps[i].loss_scale != steps[i - 1].loss_scale);
  };
  std::size_t total = 0;
  for (std::size_t i = 1; i + 1 < steps.size(); ++i) total += notable(i) ? 1 : 0;
  const std::string shown = total > limit ? "the first " + std::to_string(limit) + " of " + std::to_string(total)
                                          : "all " + std::to_string(total);
  table t(id, "Dynamic loss scale: first step, " + shown + " steps where the scale changed or the update was skipped, last step",
          {"step", "loss scale", "skipped", "why"});
  std::size_t listed = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const bool edge = i == 0 || i + 1 == steps.size();
    if (!edge && !notable(i)) continue;
    if (!edge && ++listed > limit) continue;
    t.add_row({std::to_string(steps[i].step), significant(steps[i].loss_scale, 8), steps[i].skipped ? "yes" : "no",
               steps[i].skip_reason.empty() ? "-" : steps[i].skip_reason});
  }
  return t;
}

lab::train_config tutorial_conv_config(const run_options& options, const training_sizes& sizes) {
  lab::train_config c = sized_config(options, sizes);
  c.model = "tutorial_conv";
  c.batch_size = 32;
  c.optimizer = "adam";
  c.lr = 0.01;
  c.eps = 1e-4;
  return c;
}

std::vector<std::uint64_t> seeds_of(const run_options& options) {
  // Tiny runs are smoke tests (also under the sanitizers): two seeds are the
  // fewest a paired test can use.
  const std::size_t count = options.seeds != 0 ? options.seeds : options.full ? 1 : options.tiny ? 2 : 5;
  std::vector<std::uint64_t> seeds(count);
  for (std::size_t k = 0; k < count; ++k) seeds[k] = options.seed + k;
  return seeds;
}

std::vector<double> seeded_runs::accuracies(std::size_t index) const {
  std::vector<double> out;
  for (const named_runs& runs : by_seed) out.push_back(runs.at(index).second.final_accuracy());
  return out;
}

std::vector<std::uint64_t> seeded_runs::stopped_seeds(std::size_t index) const {
  std::vector<std::uint64_t> out;
  for (std::size_t k = 0; k < by_seed.size(); ++k) {
    if (by_seed[k].at(index).second.stopped()) out.push_back(seeds[k]);
  }
  return out;
}

namespace {

std::string seed_list(const std::vector<std::uint64_t>& seeds) {
  std::string out;
  for (const std::uint64_t s : seeds) {
    if (!out.empty()) out += ' ';
    out += std::to_string(s);
  }
  return out;
}

std::vector<double> finished(const std::vector<double>& accuracies) {
  std::vector<double> out;
  for (const double a : accuracies) {
    if (!std::isnan(a)) out.push_back(a);
  }
  return out;
}

/// "80.00 ± 1.20% (5 seeds)", or the single value, or "stopped at every seed".
std::string mean_and_sd(const std::vector<double>& accuracies) {
  const std::vector<double> done = finished(accuracies);
  if (done.empty()) return "stopped at every seed";
  const sample_summary s = summarize(done);
  if (s.count == 1) return fixed(100.0 * s.mean, 2) + "% (1 seed)";
  return fixed(100.0 * s.mean, 2) + " ± " + fixed(100.0 * s.standard_deviation, 2) + "% (" +
         std::to_string(s.count) + " seeds)";
}

}  // namespace

std::string accuracy_summary(const seeded_runs& runs, std::size_t index) {
  return mean_and_sd(runs.accuracies(index));
}

table accuracy_over_seeds_table(const std::string& id, const seeded_runs& runs) {
  table t(id, "Test accuracy over seeds " + seed_list(runs.seeds) + " (finished runs only; a stopped run is not scored)",
          {"run", "seeds", "stopped", "mean (%)", "sd (%)", "min (%)", "max (%)", "by seed (%)"});
  for (std::size_t i = 0; i < runs.first().size(); ++i) {
    const std::vector<double> all = runs.accuracies(i);
    const std::vector<double> done = finished(all);
    std::string by_seed;
    for (const double a : all) {
      if (!by_seed.empty()) by_seed += ' ';
      by_seed += std::isnan(a) ? std::string("stopped") : fixed(100.0 * a, 2);
    }
    if (done.empty()) {
      t.add_row({runs.first()[i].first, std::to_string(all.size()), std::to_string(all.size()), "-", "-", "-", "-",
                 by_seed});
      continue;
    }
    const sample_summary s = summarize(done);
    t.add_row({runs.first()[i].first, std::to_string(all.size()), std::to_string(all.size() - done.size()),
               fixed(100.0 * s.mean, 2), s.count > 1 ? fixed(100.0 * s.standard_deviation, 2) : "-",
               fixed(100.0 * s.min, 2), fixed(100.0 * s.max, 2), by_seed});
  }
  return t;
}

reference_check compare_accuracies(const claim& c, const seeded_runs& runs, std::size_t a, std::size_t b,
                                   accuracy_claim direction, double margin) {
  const std::vector<double> acc_a = runs.accuracies(a), acc_b = runs.accuracies(b);
  const std::string name_a = runs.first().at(a).first, name_b = runs.first().at(b).first;
  std::string measured = name_a + ": " + mean_and_sd(acc_a) + "; " + name_b + ": " + mean_and_sd(acc_b);
  for (const std::size_t index : {a, b}) {
    const std::vector<std::uint64_t> stopped = runs.stopped_seeds(index);
    if (!stopped.empty()) {
      return not_decided(c, measured,
                         runs.first().at(index).first + " diverged at seed(s) " + seed_list(stopped) +
                             "; a diverged run has no accuracy to compare");
    }
  }
  if (runs.seeds.size() < 2) return not_decided(c, measured, "one seed, so no estimate of seed noise");
  const paired_difference d = compare_paired(acc_a, acc_b);
  measured += "; " + d.describe(100.0, 2, "points");
  const bool holds = direction == accuracy_claim::lower    ? d.high() < 0
                     : direction == accuracy_claim::higher ? d.low() > 0
                                                           : d.low() >= -margin && d.high() <= margin;
  return check_claim(c, measured, holds);
}

reference_check check_time_ratio(const claim& c, const seeded_runs& runs, std::size_t a, std::size_t b,
                                 double bound) {
  std::vector<double> ratios;
  for (const named_runs& by_seed : runs.by_seed)
    ratios.push_back(by_seed.at(a).second.seconds / by_seed.at(b).second.seconds);
  const sample_summary s = summarize(ratios);
  const std::string of_b = "x " + runs.first().at(b).first + "'s time";
  std::string measured = fixed(ratios.front(), 2) + of_b + " at seed " + std::to_string(runs.seeds.front());
  if (ratios.size() > 1)
    measured += "; " + fixed(s.min, 2) + "x to " + fixed(s.max, 2) + of_b + " over " + std::to_string(ratios.size()) +
                " seeds";
  return check_claim(c, measured, s.max <= bound);
}

reference_check compare_gradient_bias(const claim& c, const seeded_runs& runs, std::size_t a, std::size_t b) {
  constexpr auto gradient = static_cast<std::size_t>(lab::gemm_operand::gradient);
  const auto bias_of = [&](const training_run& run, const std::string& layer) {
    for (const auto& [name, by_operand] : run.quantized)
      if (name == layer) return census_value(by_operand[gradient], census_measure::bias);
    return 0.0;
  };
  const layer_censuses& layers = runs.first().at(a).second.quantized;
  std::string measured;
  bool all = !layers.empty();
  for (const auto& [layer, unused] : layers) {
    std::vector<double> magnitude_a, magnitude_b;
    for (const named_runs& by_seed : runs.by_seed) {
      magnitude_a.push_back(std::fabs(bias_of(by_seed.at(a).second, layer)));
      magnitude_b.push_back(std::fabs(bias_of(by_seed.at(b).second, layer)));
    }
    measured += (measured.empty() ? "" : "; ") + layer + " " + significant(bias_of(runs.first().at(a).second, layer), 3) +
                "% vs " + significant(bias_of(runs.first().at(b).second, layer), 3) + "%";
    if (runs.seeds.size() < 2) continue;
    const paired_difference d = compare_paired(magnitude_a, magnitude_b);
    measured += " (|bias| difference over " + std::to_string(d.differences.count) + " seeds: mean " +
                significant(d.differences.mean, 3) + ", 95% interval [" + significant(d.low(), 3) + ", " +
                significant(d.high(), 3) + "] points)";
    all = all && d.high() < 0;
  }
  if (runs.seeds.size() > 1) measured = "seed " + std::to_string(runs.seeds.front()) + ": " + measured;
  for (const std::size_t index : {a, b}) {
    const std::vector<std::uint64_t> stopped = runs.stopped_seeds(index);
    if (!stopped.empty())
      return not_decided(c, measured,
                         runs.first().at(index).first + " stopped at seed(s) " + seed_list(stopped) +
                             "; its census covers only the steps it took");
  }
  if (runs.seeds.size() < 2) return not_decided(c, measured, "one seed, so no estimate of seed noise");
  return check_claim(c, measured, all);
}

gradient_census total_gradients(const training_run& run) {
  gradient_census sum;
  for (const auto& [layer, c] : run.gradients) {
    sum.elements += c.elements;
    sum.zeros += c.zeros;
    sum.underflow_to_zero += c.underflow_to_zero;
    sum.subnormal += c.subnormal;
  }
  return sum;
}

update_census total_updates(const training_run& run) {
  update_census sum;
  for (const auto& [layer, c] : run.updates) {
    sum.nonzero_delta += c.nonzero_delta;
    sum.swamped += c.swamped;
  }
  return sum;
}

void for_each_seed_index(std::size_t count, unsigned jobs, const std::function<void(std::size_t)>& body) {
  const std::size_t workers = std::min<std::size_t>(std::max(1u, jobs), count);
  if (workers <= 1) {
    for (std::size_t k = 0; k < count; ++k) body(k);
    return;
  }
  // Hand-written rather than OpenMP: each seed's run is a long task of its
  // own (minutes to hours), taken in seed order by whichever thread is free.
  std::vector<std::exception_ptr> errors(count);
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> threads;
  threads.reserve(workers);
  for (std::size_t w = 0; w < workers; ++w) {
    threads.emplace_back([&] {
      for (std::size_t k = next++; k < count; k = next++) {
        try {
          body(k);
        } catch (...) {
          errors[k] = std::current_exception();
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace numlab::experiments
