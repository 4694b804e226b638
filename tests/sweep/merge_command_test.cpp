// `numlab merge` as a user runs it: a good merge, and bad inputs, each of
// which fails with one error line naming the file, exit status 2, and no
// output file or temporary left behind.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../cli/run_process.hpp"
#include "rundb/reader.hpp"
#include "rundb/writer.hpp"
#include "sweep/plan.hpp"
#include "sweep_scratch.hpp"

namespace {

namespace fs = std::filesystem;
using numlab::testing::run_numlab;

using sweep_test::scratch;

// `runs` runs, each finished with `steps` steps and coordinate seed = its number.
void write_runs(const fs::path& file, int runs, int steps) {
  rundb::writer w(file);
  for (int r = 1; r <= runs; ++r) {
    const auto id = w.begin_run({.name = file.stem().string() + "-" + std::to_string(r),
                                 .config_yaml = "seed: " + std::to_string(r) + "\n", .numlab_version = "0.1.0"});
    w.set_coordinates(id, {{"seed", std::to_string(r)}});
    for (int s = 0; s < steps; ++s) w.add_step({.run = id, .step = s, .loss = 1.0 / (1 + s)});
    w.finish_run(id, rundb::run_status::finished);
  }
}

// The one line a failed command printed on stderr, checked to be one line.
std::string one_error_line(const numlab::testing::process_result& r) {
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  return r.err;
}

TEST(MergeCommand, MergesTheRunsOfEveryInputInOrder) {
  scratch s("merge-good");
  write_runs(s.dir / "a.db", 2, 5);
  write_runs(s.dir / "b.db", 1, 7);
  const auto r = run_numlab({"merge", (s.dir / "all.db").string(), (s.dir / "a.db").string(), (s.dir / "b.db").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, (s.dir / "all.db").string() + ": 3 runs from 2 files\n");
  rundb::reader db(s.dir / "all.db");
  const auto runs = db.runs();
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].name, "a-1");
  EXPECT_EQ(runs[1].name, "a-2");
  EXPECT_EQ(runs[2].name, "b-1");
  EXPECT_EQ(db.coordinates(2), (std::vector<rundb::coordinate>{{"seed", "2"}}));
  EXPECT_EQ(db.steps(3).size(), 7u);
  EXPECT_EQ(s.names(), (std::vector<std::string>{"a.db", "all.db", "b.db"}));
}

TEST(MergeCommand, BadInputFailsNamingItAndLeavesNothingBehind) {
  scratch s("merge-bad");
  write_runs(s.dir / "a.db", 1, 3);
  std::ofstream(s.dir / "notes.db") << "not a database, just text\n";
  const auto out = (s.dir / "all.db").string();
  const auto a = (s.dir / "a.db").string();
  const std::vector<std::string> before{"a.db", "notes.db"};

  auto err = one_error_line(run_numlab({"merge", out, a, (s.dir / "notes.db").string()}));
  EXPECT_NE(err.find((s.dir / "notes.db").string() + ": "), std::string::npos) << err;
  EXPECT_EQ(s.names(), before);

  err = one_error_line(run_numlab({"merge", out, a, (s.dir / "missing.db").string()}));
  EXPECT_NE(err.find((s.dir / "missing.db").string() + ": "), std::string::npos) << err;
  EXPECT_EQ(s.names(), before);

  err = one_error_line(run_numlab({"merge", out, a, a}));
  EXPECT_NE(err.find(a + ": given twice"), std::string::npos) << err;
  EXPECT_EQ(s.names(), before);

  err = one_error_line(run_numlab({"merge", "--force", a, a}));
  EXPECT_NE(err.find(a + ": the output file is also an input"), std::string::npos) << err;
  EXPECT_EQ(s.names(), before);

  // An existing output is kept as it was unless --force.
  std::ofstream(out) << "precious";
  err = one_error_line(run_numlab({"merge", out, a}));
  EXPECT_NE(err.find(out + ": exists"), std::string::npos) << err;
  std::ifstream kept(out);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(kept), {}), "precious");
  const auto forced = run_numlab({"merge", "--force", out, a});
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_EQ(rundb::reader(out).runs().size(), 1u);
}


// A merge holds one sweep point's lock at a time, however many points it
// merges: 64 killed points (runs left `running`, locks free) merge, and are
// recorded as killed in their own files too, under a limit of 24 open files.
TEST(MergeCommand, ManyKilledPointsMergeUnderALowOpenFileLimit) {
  scratch s("merge-many-killed");
  const auto spec = s.dir / "many.yml";
  std::ofstream(spec) << "name: many\nset:\n  dataset: synthetic\n  model: mlp\n  hidden: 4\n"
                         "grid:\n  seed: 1..64\n";
  const auto dir = s.dir / "many";
  const auto planned = run_numlab({"sweep", spec.string(), "--dir", dir.string()});
  ASSERT_EQ(planned.exit_code, 0) << planned.err;
  const sweep::layout files{dir};
  const auto points = sweep::read_plan(dir);
  ASSERT_EQ(points.size(), 64u);
  std::vector<std::string> command{"sh", "-c", "ulimit -n 24 && exec \"$0\" \"$@\"", NUMLAB_BINARY, "merge",
                                   "--mark-killed", (s.dir / "all.db").string()};
  // One killed point's database, copied to every point: 64 writers would
  // spend most of this test's wall time in fdatasync (7 ms each under load),
  // and merge sees 64 files either way.
  const auto killed = s.dir / "killed.db";
  {
    rundb::writer w(killed);  // destroyed without finish_run: the run stays `running`
    w.begin_run({.name = "killed", .config_yaml = "seed: 1\n", .numlab_version = "0.1.0"});
  }
  for (const auto& p : points) {
    fs::copy_file(killed, files.database(p));
    std::ofstream(files.lock(p));  // the point's lock, free: its process is gone
    command.push_back(files.database(p).string());
  }
  const auto r = numlab::testing::run_process(command);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, (s.dir / "all.db").string() +
                       ": 64 runs from 64 files (64 killed sweep points recorded as killed; 64 in their own files)\n");
  for (const auto& run : rundb::reader(s.dir / "all.db").runs()) EXPECT_EQ(run.status, rundb::run_status::killed);
  for (const auto& p : points) {
    EXPECT_EQ(rundb::reader(files.database(p)).runs().back().status, rundb::run_status::killed) << p.name;
    EXPECT_EQ(sweep::state_of(files, p), sweep::point_state::killed) << p.name;
  }
}

}  // namespace
