// `numlab train`: trains a model from a YAML config (configs/*.yml) with any
// key overridable on the command line (--batch-size 64 --epochs 2 --lr 0.01).
// Prints one line per epoch to stdout; draws a progress bar on stderr only
// when stderr is a terminal.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "commands.hpp"
#include "lab/train_config.hpp"
#include "lab/trainer.hpp"

#ifndef NUMLAB_CONFIG_DIR
#define NUMLAB_CONFIG_DIR ""
#endif

namespace numlab::cli {
namespace {

std::string kebab(std::string key) {
  for (char& c : key)
    if (c == '_') c = '-';
  return key;
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

void run_train(const train_options& opt) {
  lab::train_config config;
  if (!opt.config.empty()) lab::apply_config_file(config, lab::resolve_config(opt.config, NUMLAB_CONFIG_DIR));
  for (const auto& [key, value] : opt.overrides) lab::set_config_value(config, key, value, "--" + kebab(key));
  lab::validate(config);
  if (opt.print_config) {
    std::printf("%s", lab::to_yaml(config).c_str());
    return;
  }
  lab::trainer t(config, lab::load_data(config));
  if (t.precision() != nullptr) std::printf("precision %s\n", lab::describe(t.precision()->policy()).c_str());
  std::unique_ptr<lab::progress_sink> bar;
  if (isatty(STDERR_FILENO) != 0) bar = std::make_unique<terminal_progress>();
  epoch_printer printer(std::move(bar));
  const auto reports = t.run(&printer);
  if (!reports.empty()) std::printf("test accuracy %.2f%%\n", 100.0 * reports.back().test.accuracy);
  print_precision_summary(t);
}

}  // namespace

void add_train_command(CLI::App& app) {
  auto opt = std::make_shared<train_options>();
  auto* cmd = app.add_subcommand("train", "Train a model in fp32 from a YAML config (configs/*.yml)");
  cmd->add_option("--config,-c", opt->config, "config name (configs/NAME.yml) or path to a YAML file");
  cmd->add_flag("--print-config", opt->print_config, "print the resolved configuration and exit");
  for (const auto& key : lab::config_keys()) {
    const std::string name = key.name;
    cmd->add_option_function<std::string>(
            "--" + kebab(name), [opt, name](const std::string& value) { opt->overrides[name] = value; }, key.help)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // a later --key wins, as in most CLIs
  }
  cmd->callback([opt] { run_train(*opt); });
}

}  // namespace numlab::cli
