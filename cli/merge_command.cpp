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
#include "usage_error.hpp"

namespace numlab::cli {
namespace {

struct merge_options {
  std::string out;
  std::vector<std::string> inputs;
  bool force = false;
  bool mark_killed = false;
};

// A point being trained is refused, unread: its writer may be on another
// node, and SQLite's WAL mode wants every reader of a database being written
// on the writer's node, so a merge on a login node could copy it torn. Any
// other point's lock is held shared while its file is read (checked, copied
// and, with --mark-killed, rewritten), so that no rerun can begin a new run in
// it meanwhile; `sweep status` still reads such a lock free. nullopt for a
// file that is no sweep point's, or where the file system cannot lock.
std::optional<sweep::point_lock> hold_unless_running(const std::filesystem::path& file) {
  const auto point = sweep::point_of_database(file);
  if (!point) return std::nullopt;
  const auto lock = point->first.lock(point->second);
  // A failed share and then a free probe: the trainer ended in between; look again.
  for (int look = 0; look < 3; ++look) {
    if (auto hold = sweep::point_lock::share_if_idle(lock)) return hold;
    if (sweep::probe_lock(lock) == sweep::lock_state::unknown) return std::nullopt;
  }
  const auto holder = sweep::lock_holder(lock);
  throw usage_error(file.string() + ": sweep point " + point->second.name + " is being trained" +
                    (holder.empty() ? std::string() : " by " + holder) +
                    "; merge it when it has ended, or leave it out");
}

// A sweep point's run left `running` while nobody holds the point's lock was
// killed (what `sweep status` reports): rundb cannot know that, so merge is
// told. One lock at a time: a merge of any number of points holds one extra
// open file. A point's file marked killed stays so if the merge fails later:
// that is a fact either way. Adds to `marked` the runs recorded as killed in
// their own file.
void merge_one(rundb::merger& merger, const std::filesystem::path& file, bool mark_killed, std::size_t& marked) {
  const auto hold = hold_unless_running(file);
  const auto point = sweep::point_of_database(file);
  const bool killed = hold && sweep::recorded_state(point->first, point->second) == sweep::point_state::running;
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
    for (const auto& file : o->inputs) {
      const auto hold = hold_unless_running(file);
      rundb::reader check(file);
    }
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
