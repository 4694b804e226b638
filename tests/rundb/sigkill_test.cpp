// Durability: a writer process killed with SIGKILL mid-run leaves a database
// that opens, holds every step committed before the kill, and shows the run
// as still running.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include "rundb/reader.hpp"
#include "sample_database.hpp"

namespace {

using namespace rundb_test;

// Runs in the forked child: writes steps (and bulky tensor stats, so that a
// kill often lands mid-transaction) forever, reporting each flushed step.
[[noreturn]] void write_until_killed(const std::filesystem::path& file, int report_fd) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive a crashed test
  rundb::writer w(file, {.max_batch = 64});
  const auto id = w.begin_run({.name = "killed", .config_yaml = "steps: forever\n"});
  for (std::int64_t s = 0; s < 10'000'000; ++s) {
    w.add_step({.run = id, .step = s, .epoch = s / 100, .loss = sample_loss(s), .loss_scale = 1024.0});
    for (std::size_t l = 0; l < sample_layers().size(); ++l) {
      w.add_tensor_stats({.run = id, .step = s, .layer = sample_layers()[l], .op = "dense",
                          .role = "grad_weight", .format = "binary16", .count = 4096,
                          .hist = {-24, sample_bins(s, l)}});
    }
    if (s % 8 == 7) {
      w.flush();
      const std::int64_t flushed = s;
      if (write(report_fd, &flushed, sizeof flushed) != sizeof flushed) _exit(3);
    }
  }
  _exit(0);
}

TEST(RundbDurability, SigkillLeavesEveryCommittedStep) {
  scratch_dir dir("sigkill");
  const auto file = dir / "run.db";
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(fds[0]);
    write_until_killed(file, fds[1]);
  }
  close(fds[1]);
  std::int64_t last_flushed = -1;
  // Let it run for a while, then kill it without warning.
  while (last_flushed < 3000) {
    std::int64_t value = 0;
    ASSERT_EQ(read(fds[0], &value, sizeof value), static_cast<ssize_t>(sizeof value));
    last_flushed = value;
  }
  ASSERT_EQ(kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  // Reports written before the kill may still sit in the pipe.
  std::int64_t value = 0;
  while (read(fds[0], &value, sizeof value) == static_cast<ssize_t>(sizeof value)) last_flushed = value;
  close(fds[0]);

  rundb::reader r(file);
  const auto runs = r.runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, rundb::run_status::running);
  EXPECT_TRUE(runs[0].end_time.empty());
  const auto steps = r.steps(runs[0].id);
  ASSERT_GT(static_cast<std::int64_t>(steps.size()), last_flushed);
  for (std::size_t i = 0; i < steps.size(); ++i) {  // contiguous from 0, values intact
    ASSERT_EQ(steps[i].step, static_cast<std::int64_t>(i));
    ASSERT_DOUBLE_EQ(*steps[i].loss, sample_loss(steps[i].step));
  }
  const auto hist = r.histogram(runs[0].id, "fc", "grad_weight", last_flushed);
  ASSERT_TRUE(hist.has_value());
  EXPECT_EQ(hist->step, last_flushed);
  EXPECT_EQ(hist->hist.bins, sample_bins(last_flushed, 2));
  EXPECT_NO_THROW(r.check_integrity());
}

}  // namespace
