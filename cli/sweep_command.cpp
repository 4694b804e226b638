// `numlab sweep SPEC.yml`: expands a grid of training configurations into a
// sweep folder and runs its points through an existing executor — GNU
// parallel on this machine (--local -j N) or a Slurm job array (--slurm) —
// never a scheduler of our own. `numlab sweep status DIR` reports the points
// from their run databases; `numlab sweep point DIR I` trains point I (what
// the executors call). docs/SWEEPS.md describes it all.
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "lab/train_config.hpp"
#include "sweep/plan.hpp"
#include "sweep/point_lock.hpp"
#include "sweep/spec.hpp"
#include "train_run.hpp"
#include "usage_error.hpp"

extern char** environ;

namespace numlab::cli {
namespace {

struct sweep_options {
  std::string spec;
  std::string dir;
  bool local = false;
  unsigned jobs = 0;  // 0: GNU parallel's default, one per core
  bool slurm = false;
  bool submit = false;
};

// Runs `argv` (looked up in PATH) and returns its exit status; -1 when it
// could not be started (not installed).
int run_program(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t child = 0;
  if (posix_spawnp(&child, args[0], nullptr, nullptr, args.data(), environ) != 0) return -1;
  int status = 0;
  if (waitpid(child, &status, 0) != child) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::filesystem::path this_program() { return std::filesystem::read_symlink("/proc/self/exe"); }

// Prints every point's state (only the unfinished ones past 50 points) and a
// summary; returns how many points are not done (running ones included).
std::size_t report_status(const std::filesystem::path& dir) {
  const auto points = sweep::read_plan(dir);
  const sweep::layout files{dir};
  std::map<sweep::point_state, std::size_t> counts;
  std::size_t pending = 0;
  for (const auto& p : points) {
    const auto state = sweep::state_of(files, p);
    ++counts[state];
    if (!sweep::is_done(state)) ++pending;
    if (points.size() > 50 && sweep::is_done(state)) continue;
    std::printf("%6zu  %-11s %s", p.index, std::string(sweep::to_string(state)).c_str(), p.name.c_str());
    if (const auto holder = sweep::lock_holder(files.lock(p)); state == sweep::point_state::running && !holder.empty())
      std::printf("  (%s)", holder.c_str());
    std::printf("\n");
  }
  std::printf("%zu points:", points.size());
  for (const auto& [state, n] : counts) std::printf(" %zu %s", n, std::string(sweep::to_string(state)).c_str());
  std::printf("\n");
  std::fflush(stdout);
  return pending;
}

void run_sweep(const sweep_options& o) {
  if (o.spec.empty()) throw usage_error("sweep: give a spec file (numlab sweep SPEC.yml), or status DIR");
  const auto spec = sweep::read_spec(o.spec);
  const auto points = sweep::expand(spec);
  const std::filesystem::path dir = std::filesystem::absolute(o.dir.empty() ? spec.name : o.dir);
  sweep::write_plan(spec, points, config_dirs(), dir);
  const sweep::layout files{dir};
  std::printf("sweep %s: %zu points in %s\n", spec.name.c_str(), points.size(), dir.string().c_str());
  std::fflush(stdout);
  if (o.local) {
    // The same argument file every time, so --resume-failed's sequence numbers stay valid.
    const auto args = dir / "parallel.args";
    {
      std::ofstream out(args);
      for (const auto& p : points) out << p.index << "\n";
    }
    std::vector<std::string> argv{"parallel", "--will-cite", "--joblog", (dir / "parallel.joblog").string(),
                                  "--resume-failed", "--results", files.logs().string(), "--arg-file", args.string()};
    if (o.jobs > 0) argv.insert(argv.end(), {"--jobs", std::to_string(o.jobs)});
    argv.insert(argv.end(), {this_program().string(), "sweep", "point", dir.string()});
    if (run_program(argv) < 0) throw usage_error("sweep --local: cannot run GNU parallel (apt-get install parallel)");
    if (report_status(dir) > 0) std::exit(1);
  } else if (o.slurm) {
    std::vector<std::size_t> pending;
    std::size_t running = 0;
    for (const auto& p : points) {
      const auto state = sweep::state_of(files, p);
      if (state == sweep::point_state::running) ++running;  // a live process has it: not resubmitted
      else if (!sweep::is_done(state)) pending.push_back(p.index);
    }
    if (pending.empty()) {
      if (running > 0) std::printf("%zu points are running and the others are done\n", running);
      else std::printf("every point is done\n");
      return;
    }
    const auto script = dir / "sweep.sbatch";
    {
      std::ofstream out(script);
      out << sweep::slurm_script(spec.name, spec.slurm, dir, this_program(), pending);
    }
    std::printf("wrote %s (%zu array tasks)\n", script.string().c_str(), pending.size());
    std::fflush(stdout);
    if (o.submit) {
      const int rc = run_program({"sbatch", script.string()});
      if (rc != 0) throw usage_error("sweep --submit: sbatch " + script.string() + " failed (exit " + std::to_string(rc) + ")");
    }
  } else {
    for (const auto& p : points) std::printf("%6zu  %s\n", p.index, p.name.c_str());
  }
}

// Exit status of `sweep point` for a point another process is training
// (EX_TEMPFAIL): non-zero, so GNU parallel's joblog and Slurm keep it for a
// later rerun should that process die.
constexpr int point_busy_exit = 75;

// Trains one point into DIR/runs/NAME.db, unless a finished (or diverged,
// trapped) run is there already or another process is training it; a failed,
// killed or half-written one is replaced. Holds the point's lock throughout,
// so `sweep status` sees it running until this process ends, however it ends.
int run_point(const std::string& dir, std::size_t index) {
  const auto points = sweep::read_plan(dir);
  if (index >= points.size())
    throw usage_error("sweep point: index " + std::to_string(index) + " is beyond the " +
                      std::to_string(points.size()) + " points of " + dir);
  const sweep::point& p = points[index];
  const sweep::layout files{dir};
  const auto lock = sweep::point_lock::take(files.lock(p), std::chrono::seconds(2));
  if (!lock) {
    std::fprintf(stderr, "numlab: sweep point %zu (%s) is being trained by %s; leaving it to that process\n", p.index,
                 p.name.c_str(), sweep::lock_holder(files.lock(p)).c_str());
    return point_busy_exit;
  }
  if (!lock->held())
    std::fprintf(stderr, "numlab: %s: this file system cannot lock files; `sweep status` cannot tell this point running "
                 "from killed\n", files.lock(p).c_str());
  const auto state = sweep::recorded_state(files, p);  // state_of would see our own lock: `running`
  if (sweep::is_done(state)) {
    std::printf("%s: already %s\n", p.name.c_str(), std::string(sweep::to_string(state)).c_str());
    return 0;
  }
  const auto db = files.database(p);
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db.string() + suffix);
  lab::train_config config;
  lab::apply_config_file(config, files.config(p));
  config.trace.db = db.string();
  lab::validate(config);
  std::printf("point %zu: %s\n", p.index, p.name.c_str());
  switch (train_and_record(config, p.name, p.coordinates)) {
    case train_outcome::finished:
    case train_outcome::diverged:  // an outcome, recorded: the sweep goes on and a rerun keeps it
      return 0;
    case train_outcome::interrupted:
      return 130;
  }
  return 0;
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto o = std::make_shared<sweep_options>();
  auto* cmd = app.add_subcommand("sweep", "Run a grid of training configurations (SPEC.yml) with GNU parallel or Slurm");
  cmd->add_option("spec", o->spec, "Sweep spec (docs/SWEEPS.md)");
  cmd->add_option("--dir", o->dir, "Sweep folder (default: ./NAME, the spec's name)");
  auto* local = cmd->add_flag("--local", o->local, "Run the points here through GNU parallel, resuming an interrupted sweep");
  cmd->add_option("-j,--jobs", o->jobs, "With --local: points at once (default: one per core)");
  auto* slurm = cmd->add_flag("--slurm", o->slurm, "Write DIR/sweep.sbatch, a Slurm job array of the pending points");
  cmd->add_flag("--submit", o->submit, "With --slurm: submit it with sbatch")->needs(slurm);
  local->excludes(slurm);
  cmd->callback([o, cmd] {
    if (cmd->get_subcommands().empty()) run_sweep(*o);
  });

  auto dir = std::make_shared<std::string>();
  auto* status = cmd->add_subcommand("status", "Report each point: finished, diverged, failed, running, killed, not-started...; exit 1 until every point is done");
  status->add_option("dir", *dir, "Sweep folder")->required();
  status->callback([dir] {
    if (report_status(*dir) > 0) std::exit(1);
  });

  auto index = std::make_shared<std::size_t>(0);
  auto* point = cmd->add_subcommand("point", "Train one point of a sweep (what GNU parallel and Slurm tasks run)");
  point->add_option("dir", *dir, "Sweep folder")->required();
  point->add_option("index", *index, "Point index (points.tsv)")->required();
  point->callback([dir, index] {
    const int rc = run_point(*dir, *index);
    if (rc != 0) std::exit(rc);
  });
}

}  // namespace numlab::cli
