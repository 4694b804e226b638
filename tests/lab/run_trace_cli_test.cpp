// `numlab train --trace-db` as a child process: a traced run reads back
// through rundb::reader and `numlab inspect`; SIGKILL at any moment leaves
// every committed step and status running; SIGINT ends the run after the
// current step, committed and marked interrupted; a trap marks it trapped.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <rundb/reader.hpp>

#include "temp_dir.hpp"

namespace {

// Starts numlab with `args` (stdout and stderr to `log`), returning its pid.
pid_t spawn_numlab(const std::vector<std::string>& args, const std::filesystem::path& log) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive a crashed test
  if (std::freopen(log.c_str(), "w", stdout) == nullptr || dup2(fileno(stdout), STDERR_FILENO) < 0) _exit(126);
  std::vector<char*> argv;
  std::string binary = NUMLAB_BINARY;
  argv.push_back(binary.data());
  std::vector<std::string> copy = args;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  execv(binary.c_str(), argv.data());
  _exit(127);
}

int wait_for(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

// Committed steps of the file's only run (0 while the file or run is not there yet).
std::int64_t committed_steps(const std::filesystem::path& file) {
  if (!std::filesystem::exists(file)) return 0;
  try {
    rundb::reader r(file);
    const auto runs = r.runs();
    return runs.empty() ? 0 : r.step_count(runs[0].id);
  } catch (const std::exception&) {
    return 0;  // the writer is still creating the schema
  }
}

// Waits until `steps` steps are committed; false if the child exits or 60 s pass.
bool wait_for_steps(const std::filesystem::path& file, std::int64_t steps, pid_t child) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    if (committed_steps(file) >= steps) return true;
    int status = 0;
    if (waitpid(child, &status, WNOHANG) == child) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// A run far longer than any test waits: 200 epochs of 16 steps.
std::vector<std::string> endless_run(const std::filesystem::path& db) {
  return {"train", "--dataset", "synthetic", "--model", "mlp", "--hidden", "16", "--train-limit", "256",
          "--test-limit", "32", "--batch-size", "16", "--epochs", "200", "--precision", "fp16-mixed",
          "--trace-db", db.string(), "--trace-every", "1"};
}

// Runs endless_run into `db`, sends `signal` once `steps` steps are
// committed, and returns the child's wait status (-1 if it never got there).
int signal_after_steps(const lab::testing::temp_dir& dir, const std::filesystem::path& db, std::int64_t steps,
                       int signal) {
  const pid_t child = spawn_numlab(endless_run(db), dir / "log.txt");
  if (!wait_for_steps(db, steps, child)) {
    kill(child, SIGKILL);
    wait_for(child);
    return -1;
  }
  if (kill(child, signal) != 0) return -1;
  return wait_for(child);
}

void expect_contiguous_steps(rundb::reader& r, rundb::run_id run) {
  const auto steps = r.steps(run);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    ASSERT_EQ(steps[i].step, static_cast<std::int64_t>(i));
    ASSERT_TRUE(steps[i].loss.has_value());
    EXPECT_TRUE(std::isfinite(*steps[i].loss));
    EXPECT_EQ(steps[i].epoch, static_cast<std::int64_t>(i / 16));
  }
}

TEST(TraceCli, SigkillLeavesEveryCommittedStepAndStatusRunning) {
  lab::testing::temp_dir dir;
  const auto db = dir / "killed.db";
  const int status = signal_after_steps(dir, db, 20, SIGKILL);
  ASSERT_NE(status, -1) << "the trainer did not commit 20 steps";
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

  rundb::reader r(db);
  EXPECT_NO_THROW(r.check_integrity());
  const auto runs = r.runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, rundb::run_status::running);
  EXPECT_TRUE(runs[0].end_time.empty());
  EXPECT_GE(r.step_count(runs[0].id), 20);
  expect_contiguous_steps(r, runs[0].id);
  EXPECT_FALSE(r.stats_steps(runs[0].id).empty());
}

TEST(TraceCli, SigintFinishesTheStepAndMarksTheRunInterrupted) {
  lab::testing::temp_dir dir;
  const auto db = dir / "interrupted.db";
  const int status = signal_after_steps(dir, db, 10, SIGINT);
  ASSERT_NE(status, -1) << "the trainer did not commit 10 steps";
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 130);

  rundb::reader r(db);
  const auto runs = r.runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, rundb::run_status::interrupted);
  EXPECT_FALSE(runs[0].end_time.empty());
  const auto steps = r.step_count(runs[0].id);
  EXPECT_GE(steps, 10);
  EXPECT_LT(steps, 200 * 16);
  expect_contiguous_steps(r, runs[0].id);
  // Every step's tensors were committed with it (trace.every 1): the last step has its update rows.
  const auto last = r.stats_steps(runs[0].id, std::string("update"));
  ASSERT_FALSE(last.empty());
  EXPECT_EQ(last.back(), steps - 1);
}

TEST(TraceCli, TrapMarksTheRunTrappedWithTheReport) {
  lab::testing::temp_dir dir;
  const auto db = dir / "trapped.db";
  // A loss scale of 2^40 overflows fp16 gradients on the first backward.
  const pid_t child = spawn_numlab({"train", "--dataset", "synthetic", "--model", "mlp", "--hidden", "16",
                                    "--train-limit", "64", "--test-limit", "16", "--batch-size", "16",
                                    "--precision", "fp16", "--traps", "overflow", "--loss-scaling", "static",
                                    "--loss-scale", "1099511627776", "--trace-db", db.string()},
                                   dir / "log.txt");
  const int status = wait_for(child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
  rundb::reader r(db);
  const auto runs = r.runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, rundb::run_status::trapped);
  bool trap_event = false;
  for (const auto& e : r.events(runs[0].id))
    if (e.kind == rundb::event_kind::trap) trap_event = e.message.find("overflow") != std::string::npos;
  EXPECT_TRUE(trap_event);
}

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// "layer conv1 (conv2d) tensor kernel [grad_weight] at step 1" out of a report.
std::string site_named(const std::string& text, const std::string& after) {
  const auto from = text.find(after);
  if (from == std::string::npos) return "(no '" + after + "' in: " + text + ")";
  const auto start = text.find("layer ", from);
  const auto step = text.find(" at step ", start);
  const auto end = text.find_first_not_of("0123456789", step + 9);
  return text.substr(start, end - start);
}

TEST(TraceCli, DivergedRunNamesTheOpTheTrapNamesAndIsNotBadInput) {
  if (!std::filesystem::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz") &&
      !std::filesystem::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte"))
    GTEST_SKIP() << "Fashion-MNIST not installed (Debian package dataset-fashion-mnist)";
  lab::testing::temp_dir dir;
  const auto db = dir / "diverged.db";
  // The case: pure fp16 at lr 0.01 overflows in step 1, its loss is NaN in step 2.
  const std::vector<std::string> run = {"train", "--config", std::string(NUMLAB_SOURCE_DIR) + "/configs/tutorial_conv_fp16_mixed.yml",
                                        "--precision", "fp16", "--lr", "0.01", "--train-limit", "6000"};
  auto traced = run;
  traced.insert(traced.end(), {"--trace-db", db.string()});
  int status = wait_for(spawn_numlab(traced, dir / "diverged.txt"));
  ASSERT_TRUE(WIFEXITED(status));
  const std::string diverged = read_text(dir / "diverged.txt");
  EXPECT_EQ(WEXITSTATUS(status), 3) << diverged;
  EXPECT_NE(diverged.find("training diverged"), std::string::npos) << diverged;

  auto trapped = run;
  trapped.insert(trapped.end(), {"--traps", "all"});
  status = wait_for(spawn_numlab(trapped, dir / "trapped.txt"));
  ASSERT_TRUE(WIFEXITED(status));
  const std::string trap = read_text(dir / "trapped.txt");
  EXPECT_EQ(WEXITSTATUS(status), 2) << trap;
  // The trap stops at the first overflow; the locator, which does not stop
  // the run, names the same tensor as the run's first infinity.
  EXPECT_EQ(site_named(diverged, "first inf/overflow:"), site_named(trap, "floating-point trap: overflow"));
  EXPECT_EQ(site_named(trap, "floating-point trap: overflow"),
            "layer conv1 (conv2d) tensor kernel [grad_weight] at step 1");

  rundb::reader r(db);
  const auto runs = r.runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, rundb::run_status::diverged);
  bool first_infinity_event = false;
  for (const auto& e : r.events(runs[0].id))
    first_infinity_event |= e.kind == rundb::event_kind::overflow && e.layer == "conv1" &&
                            e.message.find("first infinity of the run: layer conv1 (conv2d) tensor kernel "
                                           "[grad_weight] at step 1") != std::string::npos;
  EXPECT_TRUE(first_infinity_event);

  status = wait_for(spawn_numlab({"inspect", db.string(), "--first-nonfinite"}, dir / "inspect.txt"));
  const std::string inspect = read_text(dir / "inspect.txt");
  EXPECT_EQ(WEXITSTATUS(status), 0) << inspect;
  EXPECT_NE(inspect.find("first inf/overflow: step 1, conv1.kernel"), std::string::npos) << inspect;
  EXPECT_NE(inspect.find("conv1.kernel conv2d [grad_weight] in fp16: 288 values"), std::string::npos) << inspect;
}

TEST(TraceCli, BadTraceValueNamesTheOption) {
  lab::testing::temp_dir dir;
  const pid_t child = spawn_numlab({"train", "--dataset", "synthetic", "--trace-every", "0"}, dir / "log.txt");
  const int status = wait_for(child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
  std::ifstream log(dir / "log.txt");
  std::stringstream text;
  text << log.rdbuf();
  EXPECT_NE(text.str().find("trace.every"), std::string::npos) << text.str();
}

}  // namespace
