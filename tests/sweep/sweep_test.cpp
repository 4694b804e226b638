// numlab sweep end to end: a spec expands into named points; a real GNU
// parallel sweep of 8 small training runs (2 of which diverge) leaves one
// database per point with its outcome, merges and compares; a sweep killed
// halfway and rerun trains only the points it had not finished; status tells
// a running point from a SIGKILLed one, and neither status nor merge opens the
// database of a point being trained.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "../cli/run_process.hpp"
#include "lab/errors.hpp"
#include "rundb/compare.hpp"
#include "rundb/errors.hpp"
#include "rundb/reader.hpp"
#include "rundb/writer.hpp"
#include "sweep/plan.hpp"
#include "sweep/point_lock.hpp"
#include "sweep/spec.hpp"
#include "sweep_scratch.hpp"

namespace {

namespace fs = std::filesystem;
using numlab::testing::run_numlab;

using sweep_test::scratch;

// 2 precisions x 2 learning rates x 2 seeds; lr 1e6 diverges in fp16-mixed.
// `epochs` sets how long each point trains.
fs::path write_spec(const fs::path& dir, int epochs) {
  const auto file = dir / "grid.yml";
  std::ofstream(file) << "name: grid\n"
                         "set:\n  dataset: synthetic\n  model: mlp\n  hidden: 16\n  train_limit: 256\n"
                         "  test_limit: 64\n  batch_size: 16\n  threads: 1\n  trace.every: 8\n"
                         "  epochs: " << epochs << "\n"
                         "grid:\n  precision: [fp16-mixed, bf16]\n  lr: [0.001, 1e6]\n  seed: 1..2\n";
  return file;
}

bool parallel_installed() { return numlab::testing::run_process({"sh", "-c", "command -v parallel"}).exit_code == 0; }

TEST(SweepSpec, ExpandsTheGridWithTheFirstKeySlowest) {
  scratch s("spec");
  const auto spec = sweep::read_spec(write_spec(s.dir, 1));
  EXPECT_EQ(spec.name, "grid");
  const auto points = sweep::expand(spec);
  ASSERT_EQ(points.size(), 8u);
  EXPECT_EQ(points[0].name, "precision=fp16-mixed,lr=0.001,seed=1");
  EXPECT_EQ(points[1].name, "precision=fp16-mixed,lr=0.001,seed=2");
  EXPECT_EQ(points[7].name, "precision=bf16,lr=1e6,seed=2");
  EXPECT_EQ(points[5].coordinates[0].value, "bf16");
  EXPECT_EQ(points[5].coordinates[2].value, "2");
  const auto config = sweep::resolve(spec, points[6], {});
  EXPECT_FLOAT_EQ(config.lr, 1e6f);
  EXPECT_EQ(config.seed, 1u);
  EXPECT_EQ(config.hidden, std::vector<std::size_t>{16});
  EXPECT_EQ(sweep::point_name({{"fmt", "e4m3/fp32 given"}}), "fmt=e4m3_fp32_given");
}

TEST(SweepSpec, BadSpecsFailNamingFileAndLine) {
  scratch s("bad");
  const auto expect_error = [&](const std::string& text, const std::string& wanted) {
    const auto file = s.dir / "bad.yml";
    std::ofstream(file) << text;
    try {
      const auto spec = sweep::read_spec(file);
      for (const auto& p : sweep::expand(spec)) sweep::resolve(spec, p, {});
      ADD_FAILURE() << "accepted: " << text;
    } catch (const lab::input_error& e) {
      EXPECT_NE(std::string(e.what()).find(wanted), std::string::npos) << e.what();
    }
  };
  expect_error("grid:\n  seed: 1..2\n  lrr: [1, 2]\n", "bad.yml:3: unknown config key 'lrr'");
  expect_error("grid:\n  seed: 5..2\n", "bad.yml:2: grid key 'seed': '5..2' is not a range");
  expect_error("grid:\n  seed: [1, 1]\n", "lists '1' twice");
  expect_error("set:\n  seed: 1\n", "no 'grid' keys");
  expect_error("grid:\n  seed: [1]\nslurmm: {}\n", "bad.yml:3: unknown section 'slurmm'");
  expect_error("set:\n  seed: 1\ngrid:\n  seed: [1, 2]\n", "both set and swept");
}

TEST(SweepSpec, SlurmScriptArraysThePendingPoints) {
  sweep::slurm_resources r;
  r.max_parallel = 4;
  r.partition = "debug";
  const auto script = sweep::slurm_script("grid", r, "/data/it's", "/usr/bin/numlab", {0, 1, 2, 5, 7, 8});
  EXPECT_NE(script.find("#SBATCH --array=0-2,5,7-8%4\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --partition=debug\n"), std::string::npos);
  EXPECT_NE(script.find("exec '/usr/bin/numlab' sweep point '/data/it'\\''s' \"$SLURM_ARRAY_TASK_ID\"\n"),
            std::string::npos)
      << script;
}

TEST(SweepLocal, EightPointsThroughGnuParallelMergeAndCompare) {
  if (!parallel_installed()) GTEST_SKIP() << "GNU parallel is not installed (scripts/install-deps.sh)";
  scratch s("local");
  const auto dir = s.dir / "out";
  const auto run = run_numlab({"sweep", write_spec(s.dir, 2).string(), "--dir", dir.string(), "--local", "-j", "2"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("8 points: 6 finished 2 diverged"), std::string::npos) << run.out;
  const auto points = sweep::read_plan(dir);
  ASSERT_EQ(points.size(), 8u);
  std::vector<std::string> databases;
  for (const auto& p : points) {
    const auto state = sweep::state_of({dir}, p);
    const bool diverges = p.coordinates[0].value == "fp16-mixed" && p.coordinates[1].value == "1e6";
    EXPECT_EQ(state, diverges ? sweep::point_state::diverged : sweep::point_state::finished) << p.name;
    databases.push_back(sweep::layout{dir}.database(p).string());
  }
  std::vector<std::string> merge{"merge", (s.dir / "all.db").string()};
  merge.insert(merge.end(), databases.begin(), databases.end());
  const auto merged = run_numlab(merge);
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  rundb::reader db(s.dir / "all.db");
  ASSERT_EQ(db.runs().size(), 8u);
  // Runs keep the inputs' order: run 3 is point 2.
  EXPECT_EQ(db.coordinates(3), (std::vector<rundb::coordinate>{{"lr", "1e6"}, {"precision", "fp16-mixed"}, {"seed", "1"}}));
  EXPECT_NE(db.run(3).config_yaml.find("lr: 1e+06"), std::string::npos) << db.run(3).config_yaml;
  const std::vector<std::string> keys{"precision", "lr"};
  const auto groups = rundb::compare_runs(db, keys);
  ASSERT_EQ(groups.size(), 4u);
  for (const auto& g : groups) {
    EXPECT_EQ(g.runs, 2u);
    const bool diverges = g.values[0] == "fp16-mixed" && g.values[1] == "1e6";
    EXPECT_EQ(g.diverged, diverges ? 2u : 0u);
    EXPECT_EQ(g.final_accuracy.n, diverges ? 0u : 2u);  // never scored
  }
  const auto table = run_numlab({"inspect", (s.dir / "all.db").string(), "--compare", "precision"});
  EXPECT_EQ(table.exit_code, 0);
  EXPECT_NE(table.out.find("fp16-mixed  4     2         2"), std::string::npos) << table.out;
}

// Starts `numlab ARGS` in a process group of its own, so the test can kill
// it together with GNU parallel and every point it runs.
pid_t start_numlab_group(const std::vector<std::string>& args, const fs::path& log) {
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<std::string> all{NUMLAB_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  return rc == 0 ? pid : -1;
}

TEST(SweepLocal, KilledHalfwayAndRerunTrainsOnlyTheMissingPoints) {
  if (!parallel_installed()) GTEST_SKIP() << "GNU parallel is not installed (scripts/install-deps.sh)";
  scratch s("resume");
  const auto dir = s.dir / "out";
  const auto spec = write_spec(s.dir, 4);
  const std::vector<std::string> args{"sweep", spec.string(), "--dir", dir.string(), "--local", "-j", "1"};
  const pid_t sweep_pid = start_numlab_group(args, s.dir / "first.log");
  ASSERT_GT(sweep_pid, 0);
  // Kill the whole group (SIGKILL: no handler runs) once 3 points are done and
  // the fourth is training: then the kill lands mid-point however fast points
  // train, as long as one takes longer than a poll (tens of milliseconds).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
  std::vector<sweep::point> points;
  std::size_t done = 0;
  for (bool fourth_running = false; !(done == 3 && fourth_running) && std::chrono::steady_clock::now() < deadline;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (points.empty() && fs::exists(dir / "points.tsv")) points = sweep::read_plan(dir);
    done = 0;
    fourth_running = false;
    for (const auto& p : points) {
      const auto state = sweep::state_of({dir}, p);
      done += sweep::is_done(state) ? 1 : 0;
      fourth_running = fourth_running || (p.index == 3 && state == sweep::point_state::running);
    }
  }
  kill(-sweep_pid, SIGKILL);
  int status = 0;
  waitpid(sweep_pid, &status, 0);
  ASSERT_EQ(done, 3u) << "the sweep was not caught with 3 points done and the fourth training";
  // waitpid saw only the group leader die. A point's process can outlive it by
  // a few milliseconds (dying after its current write, or in a process group
  // of GNU parallel's own), and such a late write once moved a finished
  // database's mtime after the snapshot below. A point holds its lock until
  // its process is gone, so kill every holder and wait for every lock to be free.
  const auto locks_free_by = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (bool any_held = true; any_held && std::chrono::steady_clock::now() < locks_free_by;) {
    any_held = false;
    for (const auto& p : points) {
      const auto lock = sweep::layout{dir}.lock(p);
      if (sweep::probe_lock(lock) != sweep::lock_state::held) continue;
      any_held = true;
      int holder = 0;
      if (std::sscanf(sweep::lock_holder(lock).c_str(), "pid %d", &holder) == 1 && holder > 0) kill(holder, SIGKILL);
    }
    if (any_held) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // What the kill left: the finished databases, to be kept byte for byte.
  std::map<std::string, std::pair<ino_t, std::int64_t>> kept;
  std::size_t unfinished = 0;
  for (const auto& p : points) {
    if (!sweep::is_done(sweep::state_of({dir}, p))) {
      ++unfinished;
      continue;
    }
    struct stat st {};
    ASSERT_EQ(stat(sweep::layout{dir}.database(p).c_str(), &st), 0);
    kept[p.name] = {st.st_ino, static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
  }
  ASSERT_GT(unfinished, 0u) << "the sweep finished before it was killed";
  // Nothing runs any more: no point may still read as running.
  for (const auto& p : points) EXPECT_NE(sweep::state_of({dir}, p), sweep::point_state::running) << p.name;
  auto rerun_args = args;
  rerun_args.back() = "2";  // the rest on both cores: the rerun's -j has no bearing on what it skips
  const auto rerun = run_numlab(rerun_args);
  ASSERT_EQ(rerun.exit_code, 0) << rerun.out << rerun.err;
  for (const auto& p : points) {
    EXPECT_TRUE(sweep::is_done(sweep::state_of({dir}, p))) << p.name;
    const auto was = kept.find(p.name);
    if (was == kept.end()) continue;
    struct stat st {};
    ASSERT_EQ(stat(sweep::layout{dir}.database(p).c_str(), &st), 0);
    EXPECT_EQ(st.st_ino, was->second.first) << p.name << " was trained again";
    EXPECT_EQ(static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec, was->second.second)
        << p.name << " was written again";
  }
  // GNU parallel's job log holds each point exactly once over both runs.
  std::ifstream joblog(dir / "parallel.joblog");
  std::string line;
  std::getline(joblog, line);  // header
  std::map<std::string, int> seen;
  while (std::getline(joblog, line)) ++seen[line.substr(0, line.find('\t'))];
  EXPECT_EQ(seen.size(), 8u);
  for (const auto& [seq, n] : seen) EXPECT_EQ(n, 1) << "job " << seq << " ran " << n << " times";
}

// Kills a process group with SIGKILL and reaps its leader, at scope exit at the latest.
struct group_killer {
  pid_t pid;
  void kill_now() {
    if (pid <= 0) return;
    ::kill(-pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    pid = -1;
  }
  ~group_killer() { kill_now(); }
};

// The line `sweep status` prints for point `index`, "" when there is none.
std::string status_line(const std::string& out, std::size_t index) {
  std::istringstream lines(out);
  const std::string tag = std::to_string(index) + "  ";
  for (std::string line; std::getline(lines, line);)
    if (line.find_first_not_of(' ') == line.find(tag)) return line;
  return {};
}

TEST(SweepStatus, TellsARunningPointFromAKilledOne) {
  scratch s("status");
  const auto dir = s.dir / "out";
  const auto spec = write_spec(s.dir, 100000);  // trains far longer than the test lives
  const auto planned = run_numlab({"sweep", spec.string(), "--dir", dir.string()});
  ASSERT_EQ(planned.exit_code, 0) << planned.err;
  const auto points = sweep::read_plan(dir);
  const sweep::layout files{dir};
  group_killer first{start_numlab_group({"sweep", "point", dir.string(), "0"}, s.dir / "p0.log")};
  group_killer second{start_numlab_group({"sweep", "point", dir.string(), "1"}, s.dir / "p1.log")};
  ASSERT_GT(first.pid, 0);
  ASSERT_GT(second.pid, 0);
  // Wait until both have begun their runs (the databases alone say so).
  const auto began = [&](const sweep::point& p) {
    try {
      return fs::exists(files.database(p)) && rundb::reader(files.database(p)).runs().size() == 1;
    } catch (const rundb::error&) {
      return false;
    }
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  while (!(began(points[0]) && began(points[1])) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(began(points[0]) && began(points[1])) << "the points did not begin their runs in 2 minutes";

  auto status = run_numlab({"sweep", "status", dir.string()});
  EXPECT_EQ(status.exit_code, 1) << status.out;
  EXPECT_NE(status_line(status.out, 0).find("running"), std::string::npos) << status.out;
  EXPECT_NE(status_line(status.out, 1).find("pid " + std::to_string(second.pid)), std::string::npos) << status.out;
  EXPECT_NE(status_line(status.out, 2).find("not-started"), std::string::npos) << status.out;
  // A second process for a running point leaves it alone, and says who has it.
  const auto twice = run_numlab({"sweep", "point", dir.string(), "1"});
  EXPECT_EQ(twice.exit_code, 75);
  EXPECT_NE(twice.err.find("is being trained by pid " + std::to_string(second.pid)), std::string::npos) << twice.err;
  EXPECT_TRUE(began(points[1]));

  first.kill_now();  // SIGKILL mid-run: no handler runs, the database still says running
  EXPECT_EQ(rundb::reader(files.database(points[0])).runs().back().status, rundb::run_status::running);
  EXPECT_EQ(sweep::state_of(files, points[0]), sweep::point_state::killed);
  EXPECT_EQ(sweep::state_of(files, points[1]), sweep::point_state::running);
  status = run_numlab({"sweep", "status", dir.string()});
  EXPECT_NE(status_line(status.out, 0).find("killed"), std::string::npos) << status.out;
  EXPECT_NE(status_line(status.out, 1).find("running"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("8 points: 1 running 1 killed 6 not-started"), std::string::npos) << status.out;
  // merge refuses the running point, naming it and its trainer, and writes nothing.
  const auto refused = run_numlab({"merge", (s.dir / "all.db").string(), files.database(points[0]).string(),
                                   files.database(points[1]).string()});
  EXPECT_EQ(refused.exit_code, 2) << refused.out;
  EXPECT_NE(refused.err.find(files.database(points[1]).string() + ": sweep point " + points[1].name +
                             " is being trained by pid " + std::to_string(second.pid)),
            std::string::npos) << refused.err;
  EXPECT_FALSE(fs::exists(s.dir / "all.db"));
  // It merges the killed one, recording what status knows: its run as killed.
  const auto merged = run_numlab({"merge", (s.dir / "all.db").string(), files.database(points[0]).string()});
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_NE(merged.out.find("1 runs from 1 files (1 killed sweep points recorded as killed)"), std::string::npos)
      << merged.out;
  const auto runs = rundb::reader(s.dir / "all.db").runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, rundb::run_status::killed);
  EXPECT_EQ(rundb::reader(files.database(points[0])).runs().back().status, rundb::run_status::running)
      << "merge wrote into its input";
  // --mark-killed records it in the killed point's own file too (under its lock).
  const auto marked = run_numlab({"merge", "--mark-killed", (s.dir / "marked.db").string(),
                                  files.database(points[0]).string()});
  ASSERT_EQ(marked.exit_code, 0) << marked.err;
  EXPECT_NE(marked.out.find("1 runs from 1 files (1 killed sweep points recorded as killed; 1 in their own files)"),
            std::string::npos) << marked.out;
  EXPECT_EQ(rundb::reader(files.database(points[0])).runs().back().status, rundb::run_status::killed);
  EXPECT_EQ(rundb::reader(s.dir / "marked.db").runs()[0].status, rundb::run_status::killed);
  EXPECT_EQ(sweep::state_of(files, points[1]), sweep::point_state::running);
  EXPECT_NE(status_line(run_numlab({"sweep", "status", dir.string()}).out, 0).find("killed"), std::string::npos);
  // --slurm resubmits the killed point and leaves the running one to its process.
  const auto slurm = run_numlab({"sweep", spec.string(), "--dir", dir.string(), "--slurm"});
  ASSERT_EQ(slurm.exit_code, 0) << slurm.err;
  std::ifstream script(dir / "sweep.sbatch");
  const std::string text((std::istreambuf_iterator<char>(script)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("#SBATCH --array=0,2-7\n"), std::string::npos) << text;
}


// How many times any process opened `file` since the watch began (inotify IN_OPEN).
struct open_counter {
  int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  explicit open_counter(const fs::path& file) { ::inotify_add_watch(fd, file.c_str(), IN_OPEN); }
  ~open_counter() { ::close(fd); }
  int opens() const {
    alignas(inotify_event) char buffer[4096];
    int n = 0;
    for (ssize_t got; (got = ::read(fd, buffer, sizeof buffer)) > 0;)
      for (char* e = buffer; e < buffer + got; e += sizeof(inotify_event) + reinterpret_cast<inotify_event*>(e)->len)
        n += (reinterpret_cast<inotify_event*>(e)->mask & IN_OPEN) != 0;
    return n;
  }
};

// SQLite's WAL mode wants every reader of a database being written on the
// writer's node, so on a cluster `sweep status` and `merge` on a login node
// must not open the database of a point trained on a compute node: they probe
// the point's lock first. Here another process holds point 0's lock over a
// database that says finished (what a rerun's `sweep point` does while it
// looks): status reports it running and merge refuses it, and neither opens it.
TEST(SweepStatus, NeverOpensTheDatabaseOfAPointBeingTrained) {
  scratch s("live");
  const auto dir = s.dir / "out";
  ASSERT_EQ(run_numlab({"sweep", write_spec(s.dir, 1).string(), "--dir", dir.string()}).exit_code, 0);
  const auto points = sweep::read_plan(dir);
  const sweep::layout files{dir};
  const auto db = files.database(points[0]);
  {
    rundb::writer w(db);
    w.finish_run(w.begin_run({.name = points[0].name, .config_yaml = "seed: 1\n", .numlab_version = "0.1.0"}),
                 rundb::run_status::finished);
  }
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t holder = ::fork();
  if (holder == 0) {
    const auto lock = sweep::point_lock::take(files.lock(points[0]), std::chrono::milliseconds(0));
    const char byte = lock && lock->held() ? 'y' : 'n';
    if (::write(ready[1], &byte, 1) != 1) ::_exit(1);
    for (;;) ::pause();
  }
  struct killer {
    pid_t pid;
    void now() {
      if (pid <= 0) return;
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
      pid = -1;
    }
    ~killer() { now(); }
  } holding{holder};
  ::close(ready[1]);
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  ::close(ready[0]);
  ASSERT_EQ(byte, 'y');

  const open_counter watch(db);
  EXPECT_EQ(sweep::state_of(files, points[0]), sweep::point_state::running);
  const auto status = run_numlab({"sweep", "status", dir.string()});
  EXPECT_NE(status_line(status.out, 0).find("running"), std::string::npos) << status.out;
  EXPECT_NE(status_line(status.out, 0).find("pid " + std::to_string(holder)), std::string::npos) << status.out;
  const auto out = s.dir / "all.db";
  const auto refused = run_numlab({"merge", out.string(), db.string()});
  EXPECT_EQ(refused.exit_code, 2) << refused.out;
  EXPECT_EQ(refused.err, "numlab: " + db.string() + ": sweep point " + points[0].name + " is being trained by pid " +
                             std::to_string(holder) + " on " + [] {
                               char host[256] = {};
                               ::gethostname(host, sizeof host - 1);
                               return std::string(host);
                             }() + "; merge it when it has ended, or leave it out\n");
  EXPECT_EQ(s.names(), (std::vector<std::string>{"grid.yml", "out"})) << "merge left a file behind";
  EXPECT_EQ(watch.opens(), 0) << "the database of a point being trained was opened";

  holding.now();
  EXPECT_EQ(sweep::state_of(files, points[0]), sweep::point_state::finished);
  const auto merged = run_numlab({"merge", out.string(), db.string()});
  EXPECT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(merged.out, out.string() + ": 1 runs from 1 files\n");
  EXPECT_GT(watch.opens(), 0) << "the watch saw no open: it would not have seen one above either";
}

}  // namespace
