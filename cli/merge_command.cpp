// `numlab merge OUT.db IN.db...`: one run database from many (a sweep's
// DIR/runs/*.db), every run kept with its configuration and coordinates.
// Atomic: OUT.db appears complete or not at all.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "rundb/merge.hpp"

namespace numlab::cli {
namespace {

struct merge_options {
  std::string out;
  std::vector<std::string> inputs;
  bool force = false;
};

}  // namespace

void add_merge_command(CLI::App& app) {
  auto o = std::make_shared<merge_options>();
  auto* cmd = app.add_subcommand("merge", "Merge run databases (e.g. a sweep's DIR/runs/*.db) into one file");
  cmd->add_option("out", o->out, "The merged run database to write")->required();
  cmd->add_option("inputs", o->inputs, "Run databases to merge")->required();
  cmd->add_flag("--force", o->force, "Replace OUT if it exists");
  cmd->callback([o] {
    const std::vector<std::filesystem::path> inputs(o->inputs.begin(), o->inputs.end());
    const auto summary = rundb::merge(o->out, inputs, o->force);
    std::printf("%s: %zu runs from %zu files\n", o->out.c_str(), summary.runs, summary.files);
  });
}

}  // namespace numlab::cli
