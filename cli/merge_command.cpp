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
#include "sweep/plan.hpp"
#include "sweep/point_lock.hpp"

namespace numlab::cli {
namespace {

struct merge_options {
  std::string out;
  std::vector<std::string> inputs;
  bool force = false;
};

// A sweep point's run left `running` while nobody holds the point's lock was
// killed (what `sweep status` reports): rundb cannot know that, so merge is
// told. The lock is held shared until the merge ends, so that no rerun can
// begin a new run in that file meanwhile; `sweep status` still reads it free.
rundb::merge_input merge_input_of(const std::filesystem::path& file, std::vector<sweep::point_lock>& holds) {
  const auto point = sweep::point_of_database(file);
  if (!point) return {file, false};
  auto hold = sweep::point_lock::share_if_idle(point->first.lock(point->second));
  if (!hold || sweep::state_of(point->first, point->second) != sweep::point_state::killed) return {file, false};
  holds.push_back(std::move(*hold));
  return {file, true};
}

}  // namespace

void add_merge_command(CLI::App& app) {
  auto o = std::make_shared<merge_options>();
  auto* cmd = app.add_subcommand("merge", "Merge run databases (e.g. a sweep's DIR/runs/*.db) into one file");
  cmd->add_option("out", o->out, "The merged run database to write")->required();
  cmd->add_option("inputs", o->inputs, "Run databases to merge")->required();
  cmd->add_flag("--force", o->force, "Replace OUT if it exists");
  cmd->callback([o] {
    std::vector<sweep::point_lock> holds;
    std::vector<rundb::merge_input> inputs;
    for (const auto& file : o->inputs) inputs.push_back(merge_input_of(file, holds));
    const auto summary = rundb::merge(o->out, inputs, o->force);
    std::printf("%s: %zu runs from %zu files", o->out.c_str(), summary.runs, summary.files);
    if (summary.killed > 0) std::printf(" (%zu killed sweep points recorded as killed)", summary.killed);
    std::printf("\n");
  });
}

}  // namespace numlab::cli
