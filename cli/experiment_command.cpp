// `numlab experiment list | all | NAME`: runs the reproduced tutorial
// experiments, prints their tables and writes OUT/NAME.md and OUT/NAME.csv
// (and OUT/NAME.db, the run database, for experiments that train);
// with --experiments-md it also regenerates the top-level EXPERIMENTS.md.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "experiments/experiment.hpp"
#include "experiments/output.hpp"

namespace numlab::cli {
namespace {

struct experiment_settings {
  std::string target;
  std::string output_dir = "results";
  std::string experiments_md;
  bool full = false;
  bool tiny = false;
  std::uint64_t seed = 1;
  std::size_t seeds = 0;
  unsigned jobs = 1;
};

void list_experiments() {
  for (const experiments::experiment& e : experiments::all_experiments()) {
    std::printf("%-20s %-5s %s\n", std::string(e.name).c_str(), e.fast ? "fast" : "slow",
                std::string(e.description).c_str());
  }
}

void run_experiments(const experiment_settings& s) {
  std::vector<const experiments::experiment*> chosen;
  if (s.target == "all") {
    for (const experiments::experiment& e : experiments::all_experiments()) {
      if (e.fast) chosen.push_back(&e);
    }
  } else {
    chosen.push_back(&experiments::find_experiment(s.target));
  }
  experiments::run_options options;
  options.output_dir = s.output_dir;
  options.full = s.full;
  options.tiny = s.tiny;
  options.seed = s.seed;
  options.seeds = s.seeds;
  options.jobs = s.jobs;
  for (const experiments::experiment* e : chosen) {
    experiments::staged_run_database database(options.output_dir, e->name);
    options.run_database = database.path();
    const experiments::experiment_result result = e->run(options);
    std::fputs(experiments::render_markdown(*e, result).c_str(), stdout);
    experiments::write_results(*e, result, options.output_dir);
    const std::filesystem::path base = options.output_dir / std::string(e->name);
    std::printf("wrote %s.md and %s.csv\n", base.string().c_str(), base.string().c_str());
    if (const auto recorded = database.commit())
      std::printf("wrote %s (its training runs: numlab inspect %s, or numlab-gui)\n", recorded->string().c_str(),
                  recorded->string().c_str());
    std::printf("\n");
    std::fflush(stdout);
  }
  if (!s.experiments_md.empty()) {
    experiments::write_file_atomically(s.experiments_md, experiments::render_experiments_md(options.output_dir));
    std::printf("wrote %s\n", s.experiments_md.c_str());
  }
}

}  // namespace

void add_experiment_command(CLI::App& app) {
  auto settings = std::make_shared<experiment_settings>();
  CLI::App* command = app.add_subcommand(
      "experiment", "Reproduce the mixed-precision tutorials' experiments: list, all (the fast ones) or NAME");
  command->add_option("target", settings->target, "list, all, or an experiment's name")->required();
  command->add_option("--out", settings->output_dir, "folder for NAME.md, NAME.csv and NAME.db (default: results)");
  command->add_option("--seed", settings->seed, "seed of every random choice (default: 1)");
  command->add_option("--seeds", settings->seeds,
                      "training experiments: train every run at seeds SEED, SEED+1, ... (default: 5; 1 with --full)")
      ->check(CLI::PositiveNumber);
  command->add_option("--jobs", settings->jobs,
                      "training experiments: train this many seeds at once, each on its own thread (default: 1; "
                      "the results do not depend on it)")
      ->check(CLI::Range(1u, 256u));
  command->add_flag("--full", settings->full, "the tutorials' full sizes instead of the 2-core defaults");
  command->add_flag("--tiny", settings->tiny, "the smallest sizes (smoke tests)");
  command->add_option("--experiments-md", settings->experiments_md,
                      "also regenerate this EXPERIMENTS.md from every NAME.md in the output folder");
  command->callback([settings] {
    if (settings->target == "list") {
      list_experiments();
    } else {
      run_experiments(*settings);
    }
  });
}

}  // namespace numlab::cli
