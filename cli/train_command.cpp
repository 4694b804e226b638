// `numlab train`: trains a model from a YAML config (configs/*.yml) with any
// key overridable on the command line (--batch-size 64 --epochs 2 --lr 0.01).
// Prints one line per epoch to stdout; draws a progress bar on stderr only
// when stderr is a terminal. With trace.db set (--trace-db FILE) the run is
// recorded into a run database; SIGINT then ends it after the current step,
// committed and marked interrupted (exit code 130).
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "commands.hpp"
#include "train_run.hpp"
#include "lab/errors.hpp"
#include "lab/precision_hook.hpp"
#include "lab/run_recorder.hpp"
#include "lab/train_config.hpp"
#include "lab/trainer.hpp"
#include "lab/version.hpp"

// Where the configs are, relative to the folder of the running program: an
// installed numlab's share folder (bin/ -> share/numlab/configs in the GNU
// layout), and the source tree's configs/ for a numlab in its build folder.
#ifndef NUMLAB_INSTALLED_CONFIG_DIR
#define NUMLAB_INSTALLED_CONFIG_DIR ""
#endif
#ifndef NUMLAB_BUILD_TREE_CONFIG_DIR
#define NUMLAB_BUILD_TREE_CONFIG_DIR ""
#endif

namespace numlab::cli {
namespace {

// The one sanctioned process-wide mutable flag: SIGINT's handler may only
// set a sig_atomic_t, and the trainer polls it between steps.
volatile std::sig_atomic_t interrupt_requested = 0;

extern "C" void request_interrupt(int /*signal*/) { interrupt_requested = 1; }

std::string kebab(std::string key) {
  for (char& c : key)
    if (c == '_') c = '-';
  return key;
}

// Option names of a key: --trace.db is also --trace-db.
std::string option_names(const std::string& key) {
  std::string names = "--" + kebab(key), dashed = names;
  for (char& c : dashed)
    if (c == '.') c = '-';
  return dashed == names ? names : names + "," + dashed;
}

// Progress bar on a terminal: redrawn at most ten times a second.
class terminal_progress : public lab::progress_sink {
 public:
  void on_batch(std::size_t epoch, std::size_t batch, std::size_t batches, double mean_loss,
                double images_per_second) override {
    const auto now = std::chrono::steady_clock::now();
    if (batch != batches && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    constexpr int width = 30;
    const int filled = static_cast<int>(width * static_cast<double>(batch) / static_cast<double>(batches));
    std::string bar(static_cast<std::size_t>(filled), '=');
    if (filled < width) bar += '>';
    bar.resize(width, ' ');
    std::fprintf(stderr, "\repoch %zu [%s] %zu/%zu loss %.4f %.0f img/s ", epoch, bar.c_str(), batch, batches,
                 mean_loss, images_per_second);
    std::fflush(stderr);
  }
  void on_epoch(const lab::epoch_report&) override {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  }

 private:
  std::chrono::steady_clock::time_point last_{};
};

// Prints the per-epoch result lines; forwards batches to the bar if any.
class epoch_printer : public lab::progress_sink {
 public:
  explicit epoch_printer(std::unique_ptr<lab::progress_sink> bar) : bar_(std::move(bar)) {}
  void on_batch(std::size_t epoch, std::size_t batch, std::size_t batches, double mean_loss,
                double images_per_second) override {
    if (bar_) bar_->on_batch(epoch, batch, batches, mean_loss, images_per_second);
  }
  void on_epoch(const lab::epoch_report& r) override {
    if (bar_) bar_->on_epoch(r);
    std::printf("epoch %zu/%zu  train loss %.4f acc %.2f%%  test loss %.4f acc %.2f%%  %.0f img/s  %.1f s\n",
                r.epoch, r.epochs, r.train_loss, 100.0 * r.train_accuracy, r.test.loss, 100.0 * r.test.accuracy,
                r.images_per_second, r.train_seconds);
    std::fflush(stdout);
  }

 private:
  std::unique_ptr<lab::progress_sink> bar_;
};

// Loss-scale outcome and, in shadow mode, each site's error against fp32.
void print_precision_summary(const lab::trainer& t) {
  if (t.scaler().settings().mode == lab::loss_scaling::kind::dynamic)
    std::printf("loss scale %g, %llu updates skipped for inf/NaN gradients\n", t.scaler().scale(),
                static_cast<unsigned long long>(t.scaler().skipped()));
  const auto shadow = t.shadow_errors();
  if (shadow.empty()) return;
  std::printf("shadow mode: relative error against the fp32 model (mean, max over training batches)\n");
  for (const auto& e : shadow)
    std::printf("  %-28s %-14s %-12s %.3e  %.3e\n", e.layer.c_str(), e.tensor.c_str(),
                std::string(lab::role_name(e.role)).c_str(), e.mean, e.max);
}

struct train_options {
  std::string config;
  bool print_config = false;
  std::map<std::string, std::string> overrides;
};

std::string run_name(const train_options& opt) {
  return opt.config.empty() ? std::string("numlab train") : std::filesystem::path(opt.config).stem().string();
}

// The divergence and the run's first NaN and infinity as the policy located them.
void print_divergence(const lab::trainer& t, const lab::training_diverged& e) {
  std::fprintf(stderr, "numlab: %s\n", e.what());
  if (const lab::precision_hook* policy = t.precision()) {
    if (const auto& nan = policy->first_nan()) std::fprintf(stderr, "  first NaN: %s\n", nan->describe().c_str());
    if (const auto& inf = policy->first_infinity())
      std::fprintf(stderr, "  first inf/overflow: %s\n", inf->describe().c_str());
  }
}

train_outcome run_train(const train_options& opt) {
  lab::train_config config;
  if (!opt.config.empty()) lab::apply_config_file(config, lab::resolve_config(opt.config, config_dirs()));
  for (const auto& [key, value] : opt.overrides) lab::set_config_value(config, key, value, "--" + kebab(key));
  lab::validate(config);
  if (opt.print_config) {
    std::printf("%s", lab::to_yaml(config).c_str());
    return train_outcome::finished;
  }
  return train_and_record(config, run_name(opt), {});
}

}  // namespace

train_outcome train_and_record(const lab::train_config& config, const std::string& name,
                               std::vector<rundb::coordinate> coordinates) {
  lab::train_data data = lab::load_data(config);
  std::unique_ptr<lab::run_recorder> recorder;
  if (config.trace.enabled()) {
    recorder = std::make_unique<lab::run_recorder>(config, name, std::string(lab::numlab_version()));
    if (!coordinates.empty()) recorder->set_coordinates(std::move(coordinates));
  }
  try {
    lab::trainer t(config, std::move(data), recorder ? recorder->context() : lab::op_context{});
    if (recorder) recorder->attach(t);
    if (t.precision() != nullptr) std::printf("precision %s\n", lab::describe(t.precision()->policy()).c_str());
    std::unique_ptr<lab::progress_sink> bar;
    if (isatty(STDERR_FILENO) != 0) bar = std::make_unique<terminal_progress>();
    epoch_printer printer(std::move(bar));
    interrupt_requested = 0;
    t.stop_when(&interrupt_requested);
    std::signal(SIGINT, request_interrupt);
    std::vector<lab::epoch_report> reports;
    try {
      reports = t.run(&printer);
    } catch (const lab::training_diverged& e) {
      std::signal(SIGINT, SIG_DFL);
      std::fflush(stdout);
      print_divergence(t, e);
      if (recorder) recorder->fail(e);
      return train_outcome::diverged;
    }
    std::signal(SIGINT, SIG_DFL);
    if (t.interrupted()) {
      if (recorder) recorder->finish(rundb::run_status::interrupted);
      std::printf("interrupted after %llu updates\n", static_cast<unsigned long long>(t.updates_done()));
      std::fflush(stdout);
      return train_outcome::interrupted;
    }
    if (recorder) recorder->finish(rundb::run_status::finished);
    if (!reports.empty()) std::printf("test accuracy %.2f%%\n", 100.0 * reports.back().test.accuracy);
    print_precision_summary(t);
  } catch (const std::exception& e) {
    std::signal(SIGINT, SIG_DFL);
    if (recorder) recorder->fail(e);
    throw;
  }
  return train_outcome::finished;
}

// Found from the running program, so an install under any prefix finds its
// own configs and never the tree it was built from.
std::vector<std::filesystem::path> config_dirs() {
  std::error_code error;
  const auto program = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return {};
  std::vector<std::filesystem::path> dirs;
  for (const std::string_view relative : {NUMLAB_INSTALLED_CONFIG_DIR, NUMLAB_BUILD_TREE_CONFIG_DIR})
    if (!relative.empty()) dirs.push_back((program.parent_path() / relative).lexically_normal());
  return dirs;
}


void add_train_command(CLI::App& app) {
  auto opt = std::make_shared<train_options>();
  auto* cmd = app.add_subcommand("train", "Train a model under a precision policy from a YAML config (configs/*.yml), optionally traced into a run database");
  cmd->add_option("--config,-c", opt->config, "config name (configs/NAME.yml) or path to a YAML file");
  cmd->add_flag("--print-config", opt->print_config, "print the resolved configuration and exit");
  for (const auto& key : lab::config_keys()) {
    const std::string name = key.name;
    cmd->add_option_function<std::string>(
            option_names(name), [opt, name](const std::string& value) { opt->overrides[name] = value; }, key.help)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // a later --key wins, as in most CLIs
  }
  cmd->callback([opt] {
    switch (run_train(*opt)) {
      case train_outcome::finished:
        break;
      case train_outcome::interrupted:
        std::exit(130);  // 128 + SIGINT, as shells report an interrupted program
      case train_outcome::diverged:
        std::exit(3);  // not 2 (bad input): the input was fine, the training was not
    }
  });
}

}  // namespace numlab::cli
