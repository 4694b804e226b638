// run_options::jobs: seeds trained on several threads give what one thread
// gives, wall times aside; every seed runs, and a failure reaches the caller.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include "experiments/experiment.hpp"
#include "experiments/training.hpp"
#include "tiny_runs.hpp"

namespace numlab::experiments {
namespace {

// Every table cell except the wall times, every check's measurement, and
// every finding of two runs of one experiment agree.
void expect_same_but_wall_times(const experiment_result& a, const experiment_result& b, const std::string& name) {
  ASSERT_EQ(a.tables.size(), b.tables.size()) << name;
  for (std::size_t t = 0; t < a.tables.size(); ++t) {
    const table& x = a.tables[t];
    const table& y = b.tables[t];
    ASSERT_EQ(x.columns(), y.columns()) << name << " " << x.id();
    ASSERT_EQ(x.rows().size(), y.rows().size()) << name << " " << x.id();
    for (std::size_t r = 0; r < x.rows().size(); ++r) {
      for (std::size_t c = 0; c < x.columns().size(); ++c) {
        if (x.columns()[c].find("wall time") != std::string::npos) continue;
        EXPECT_EQ(x.rows()[r][c], y.rows()[r][c]) << name << " " << x.id() << " row " << r << " " << x.columns()[c];
      }
    }
  }
  ASSERT_EQ(a.checks.size(), b.checks.size()) << name;
  for (std::size_t k = 0; k < a.checks.size(); ++k) EXPECT_EQ(a.checks[k].computed, b.checks[k].computed) << name;
  EXPECT_EQ(a.findings, b.findings) << name;
}

TEST(ParallelSeeds, TwoJobsGiveWhatOneGives) {
  for (const char* name : {"loss-scaling", "fp4-stochastic"}) {
    run_options one = testing::tiny_options();
    run_options two = one;
    two.seeds = one.seeds = 3;
    two.jobs = 2;
    expect_same_but_wall_times(find_experiment(name).run(one), find_experiment(name).run(two), name);
  }
}

TEST(ParallelSeeds, EveryIndexRunsOnceAndTheLowestFailureIsRethrown) {
  std::vector<std::atomic<int>> calls(7);
  try {
    for_each_seed_index(calls.size(), 3, [&](std::size_t k) {
      ++calls[k];
      if (k == 5 || k == 2) throw std::runtime_error("seed " + std::to_string(k));
    });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "seed 2");
  }
  for (std::size_t k = 0; k < calls.size(); ++k) EXPECT_EQ(calls[k].load(), 1) << k;
}

}  // namespace
}  // namespace numlab::experiments
