// `numlab merge OUT.db IN.db...`: one run database from many (a sweep's
// DIR/runs/*.db), every run kept with its configuration and coordinates.
// Atomic: OUT.db appears complete or not at all.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "rundb/killed_runs.hpp"
#include "rundb/merge.hpp"
#include "rundb/reader.hpp"
#include "sweep/plan.hpp"
#include "sweep/point_lock.hpp"

namespace numlab::cli {
namespace {

struct merge_options {
  std::string out;
  std::vector<std::string> inputs;
  bool force = false;
  bool mark_killed = false;
};

// A sweep point's run left `running` while nobody holds the point's lock was
// killed (what `sweep status` reports): rundb cannot know that, so merge is
// told. The lock is held shared while the point's file is copied (and, with
// --mark-killed, rewritten), so that no rerun can begin a new run in that
// file meanwhile; `sweep status` still reads it free. One lock at a time:
// a merge of any number of points holds one extra open file. A point's file
// marked killed stays so if the merge fails later: that is a fact either way.
// Adds to `marked` the runs recorded as killed in their own file.
void merge_one(rundb::merger& merger, const std::filesystem::path& file, bool mark_killed, std::size_t& marked) {
  const auto point = sweep::point_of_database(file);
  std::optional<sweep::point_lock> hold;
  if (point) hold = sweep::point_lock::share_if_idle(point->first.lock(point->second));
  const bool killed = hold && sweep::state_of(point->first, point->second) == sweep::point_state::killed;
  merger.add({file, killed});
  if (killed && mark_killed) marked += rundb::record_killed(file);
}

}  // namespace

void add_merge_command(CLI::App& app) {
  auto o = std::make_shared<merge_options>();
  auto* cmd = app.add_subcommand("merge", "Merge run databases (e.g. a sweep's DIR/runs/*.db) into one file");
  cmd->add_option("out", o->out, "The merged run database to write")->required();
  cmd->add_option("inputs", o->inputs, "Run databases to merge")->required();
  cmd->add_flag("--force", o->force, "Replace OUT if it exists");
  cmd->add_flag("--mark-killed", o->mark_killed,
                "Also record a killed sweep point's run as killed in the point's own database");
  cmd->callback([o] {
    rundb::merger merger(o->out, o->force);
    // Every input is checked before any is copied (or marked), so a bad one fails at once.
    for (const auto& file : o->inputs) rundb::reader check(file);
    std::size_t marked = 0;
    for (const auto& file : o->inputs) merge_one(merger, file, o->mark_killed, marked);
    const auto summary = merger.commit();
    std::printf("%s: %zu runs from %zu files", o->out.c_str(), summary.runs, summary.files);
    if (summary.killed > 0) {
      std::printf(" (%zu killed sweep points recorded as killed", summary.killed);
      if (o->mark_killed) std::printf("; %zu in their own files", marked);
      std::printf(")");
    }
    std::printf("\n");
  });
}

}  // namespace numlab::cli
