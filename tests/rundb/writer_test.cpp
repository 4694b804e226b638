// The writer: batching, flush, append to an existing file, errors, concurrency.
#include <gtest/gtest.h>

#include <atomic>
#include <sstream>
#include <thread>

#include "rundb/errors.hpp"
#include "rundb/reader.hpp"
#include "rundb/summary.hpp"
#include "sample_database.hpp"

namespace {

using namespace rundb_test;

TEST(RundbWriter, FlushMakesEverythingQueuedVisibleToReaders) {
  scratch_dir dir("flush");
  rundb::writer w(dir / "run.db", {.max_batch = 7});
  const auto id = w.begin_run({.name = "r"});
  for (std::int64_t s = 0; s < 1000; ++s) w.add_step({.run = id, .step = s, .loss = sample_loss(s)});
  w.flush();
  rundb::reader r(dir / "run.db");
  EXPECT_EQ(r.step_count(id), 1000);
  EXPECT_DOUBLE_EQ(*r.steps(id, {999, 999}).at(0).loss, sample_loss(999));
}

TEST(RundbWriter, ManyThreadsMayWriteAtOnce) {
  scratch_dir dir("threads");
  rundb::writer w(dir / "run.db", {.max_queued = 16});  // tiny queue: exercise back-pressure
  const auto id = w.begin_run({.name = "r"});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (std::int64_t s = t; s < 2000; s += 4) w.add_step({.run = id, .step = s, .loss = 1.0});
    });
  }
  for (auto& t : threads) t.join();
  w.flush();
  EXPECT_EQ(rundb::reader(dir / "run.db").step_count(id), 2000);
}

TEST(RundbWriter, DestructorCommitsWhatIsQueued) {
  scratch_dir dir("dtor");
  rundb::run_id id = 0;
  {
    rundb::writer w(dir / "run.db");
    id = w.begin_run({.name = "r"});
    for (std::int64_t s = 0; s < 300; ++s) w.add_step({.run = id, .step = s});
  }
  EXPECT_EQ(rundb::reader(dir / "run.db").step_count(id), 300);
}

TEST(RundbWriter, AppendsRunsToAnExistingFile) {
  scratch_dir dir("append");
  write_sample(dir / "run.db");
  {
    rundb::writer w(dir / "run.db");
    const auto id = w.begin_run({.name = "third"});
    w.finish_run(id, rundb::run_status::interrupted);
  }
  rundb::reader r(dir / "run.db");
  const auto runs = r.runs();
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[2].name, "third");
  EXPECT_EQ(runs[2].status, rundb::run_status::interrupted);
}

TEST(RundbWriter, BackgroundFailuresSurfaceOnTheNextCall) {
  scratch_dir dir("fail");
  rundb::writer w(dir / "run.db");
  EXPECT_THROW(w.finish_run(12345, rundb::run_status::failed), rundb::error);
  EXPECT_THROW(w.add_step({.run = 1, .step = 0}), rundb::error);
  EXPECT_THROW(w.flush(), rundb::error);
}

TEST(RundbWriter, RejectsAOneBinHistogram) {
  scratch_dir dir("onebin");
  rundb::writer w(dir / "run.db");
  const auto id = w.begin_run({.name = "r"});
  rundb::tensor_stats_record t{.run = id, .layer = "fc", .role = "activation"};
  t.hist.bins = {5};
  EXPECT_THROW(w.add_tensor_stats(t), rundb::error);
}

TEST(RundbWriter, ABatchOfTensorStatsIsWrittenWholeOrNotAtAll) {
  scratch_dir dir("batch");
  rundb::writer w(dir / "run.db");
  const auto id = w.begin_run({.name = "r"});
  std::vector<rundb::tensor_stats_record> batch;
  for (std::int64_t s = 0; s < 3; ++s) {
    rundb::tensor_stats_record t{.run = id, .step = s, .layer = "fc", .role = "activation"};
    t.count = static_cast<std::uint64_t>(10 + s);
    t.hist.first_exponent = -3;
    t.hist.bins = {1, static_cast<std::uint64_t>(s), 2};
    batch.push_back(t);
  }
  std::vector<rundb::tensor_stats_record> bad = batch;
  bad[1].hist.bins = {5};  // one bin: rejected, and so is the whole batch
  EXPECT_THROW(w.add_tensor_stats(bad), rundb::error);
  w.add_tensor_stats(batch);
  w.flush();
  rundb::reader r(dir / "run.db");
  const auto rows = r.tensor_stats({.run = id, .with_histograms = true});
  ASSERT_EQ(rows.size(), 3u);
  for (std::size_t s = 0; s < 3; ++s) {
    EXPECT_EQ(rows[s].step, static_cast<std::int64_t>(s));
    EXPECT_EQ(rows[s].count, 10 + s);
    EXPECT_EQ(rows[s].hist.bins, (std::vector<std::uint64_t>{1, s, 2}));
  }
}

TEST(RundbWriter, StatusSpellingsRoundTrip) {
  for (auto s : {rundb::run_status::running, rundb::run_status::finished, rundb::run_status::failed,
                 rundb::run_status::trapped, rundb::run_status::interrupted, rundb::run_status::diverged,
                 rundb::run_status::killed}) {
    EXPECT_EQ(rundb::parse_run_status(rundb::to_string(s)), s);
  }
  for (auto k : {rundb::event_kind::overflow, rundb::event_kind::nan, rundb::event_kind::skipped,
                 rundb::event_kind::trap, rundb::event_kind::warning}) {
    EXPECT_EQ(rundb::parse_event_kind(rundb::to_string(k)), k);
  }
  EXPECT_FALSE(rundb::parse_run_status("done").has_value());
}

}  // namespace

namespace {

using namespace rundb_test;

// `numlab inspect` reads while a trainer writes: every summary taken during
// the writes must succeed and see a growing, gap-free prefix of the steps.
TEST(RundbWriter, ReadersSeeConsistentSnapshotsWhileWriting) {
  scratch_dir dir("concurrent");
  rundb::writer w(dir / "run.db", {.max_batch = 16});
  const auto id = w.begin_run({.name = "live"});
  std::atomic<bool> done{false};
  std::thread trainer([&] {
    for (std::int64_t s = 0; s < 3000; ++s) {
      w.add_step({.run = id, .step = s, .loss = sample_loss(s)});
      if (s % 50 == 0) w.flush();
    }
    w.flush();
    done = true;
  });
  rundb::reader r(dir / "run.db");
  std::int64_t previous = 0;
  int snapshots = 0;
  while (!done || snapshots == 0) {
    const auto steps = r.steps(id);
    ASSERT_GE(static_cast<std::int64_t>(steps.size()), previous);
    for (std::size_t i = 0; i < steps.size(); ++i) ASSERT_EQ(steps[i].step, static_cast<std::int64_t>(i));
    previous = static_cast<std::int64_t>(steps.size());
    std::ostringstream summary;
    rundb::write_run_summary(r, id, summary);
    ++snapshots;
  }
  trainer.join();
  EXPECT_EQ(r.step_count(id), 3000);
}

}  // namespace
