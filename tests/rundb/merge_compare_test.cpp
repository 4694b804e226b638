// rundb::merge copies every run with its rows under new ids and is atomic;
// rundb::compare_runs groups by coordinates, scoring finished runs only.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "rundb/compare.hpp"
#include "rundb/errors.hpp"
#include "rundb/merge.hpp"
#include "rundb/reader.hpp"
#include "sample_database.hpp"

namespace {

using namespace rundb_test;

// One run per file: `accuracy` as its last evaluation, `skips` skipped steps.
void write_point(const std::filesystem::path& file, const std::string& precision, const std::string& seed,
                 rundb::run_status status, double accuracy, int skips) {
  rundb::writer w(file);
  const auto id = w.begin_run({.name = precision + "-" + seed, .config_yaml = "precision: " + precision + "\n",
                               .numlab_version = "0.1.0"});
  w.set_coordinates(id, {{"precision", precision}, {"seed", seed}});
  for (int s = 0; s < 10; ++s) w.add_step({.run = id, .step = s, .loss = 1.0, .skipped = s < skips});
  w.add_event({id, 2, rundb::event_kind::overflow, "fc", "inf"});
  w.add_evaluation({id, 0, 4, 0.5, 0.1});
  w.add_evaluation({id, 1, 9, 0.4, accuracy});
  w.finish_run(id, status);
}

TEST(RundbMerge, KeepsEveryRunWithItsRowsUnderNewIds) {
  scratch_dir dir("merge");
  const auto sample = dir / "sample.db";
  const auto sample_id = write_sample(sample);  // two runs, every table
  write_point(dir / "p.db", "bf16", "1", rundb::run_status::finished, 0.75, 2);
  const std::vector<rundb::merge_input> inputs{{sample}, {dir / "p.db"}};
  const auto summary = rundb::merge(dir / "all.db", inputs);
  EXPECT_EQ(summary.files, 2u);
  EXPECT_EQ(summary.runs, 3u);
  rundb::reader merged(dir / "all.db");
  rundb::reader original(sample);
  const auto runs = merged.runs();
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].name, "baseline");
  EXPECT_EQ(runs[0].config_yaml, original.run(sample_id).config_yaml);
  EXPECT_EQ(runs[0].status, rundb::run_status::finished);
  EXPECT_EQ(runs[1].status, rundb::run_status::running);
  EXPECT_EQ(runs[2].id, 3);
  EXPECT_EQ(merged.coordinates(3), (std::vector<rundb::coordinate>{{"precision", "bf16"}, {"seed", "1"}}));
  for (const auto& table : rundb::reader::table_names()) {
    if (table == "runs" || table == "formats") continue;  // not read by run
    EXPECT_EQ(merged.read_table(table, 1).rows.size(), original.read_table(table, sample_id).rows.size()) << table;
  }
  const auto stats = merged.tensor_stats({.run = 1, .with_histograms = true});
  const auto want = original.tensor_stats({.run = sample_id, .with_histograms = true});
  ASSERT_EQ(stats.size(), want.size());
  EXPECT_EQ(stats.back().hist.bins, want.back().hist.bins);
  EXPECT_EQ(merged.skipped_steps(3).size(), 2u);
  EXPECT_TRUE(merged.format("binary16").has_value());
  merged.check_integrity();
}

TEST(RundbMerge, FailsWithoutLeavingAnythingBehind) {
  scratch_dir dir("merge-fail");
  write_point(dir / "p.db", "bf16", "1", rundb::run_status::finished, 0.75, 0);
  write_file(dir / "junk.db", "not a database at all, just some text");
  const auto out = dir / "all.db";
  const std::vector<rundb::merge_input> bad{{dir / "p.db"}, {dir / "junk.db"}};
  EXPECT_THROW(rundb::merge(out, bad), rundb::not_a_run_database);
  const std::vector<rundb::merge_input> twice{{dir / "p.db"}, {dir / "p.db"}};
  EXPECT_THROW(rundb::merge(out, twice), rundb::error);
  const std::vector<rundb::merge_input> itself{{dir / "p.db"}};
  EXPECT_THROW(rundb::merge(dir / "p.db", itself, true), rundb::error);
  for (const auto& entry : std::filesystem::directory_iterator(dir / "")) {
    const auto name = entry.path().filename().string();
    EXPECT_TRUE(name.rfind("p.db", 0) == 0 || name == "junk.db") << "a failed merge left " << name << " behind";
  }
  rundb::merge(out, itself);
  EXPECT_THROW(rundb::merge(out, itself), rundb::error);  // exists
  EXPECT_NO_THROW(rundb::merge(out, itself, true));
}

TEST(RundbCompare, MeanAndSampleSdOverFinishedRunsOnly) {
  scratch_dir dir("compare");
  const std::vector<std::filesystem::path> files{dir / "a.db", dir / "b.db", dir / "c.db", dir / "d.db"};
  write_point(files[0], "bf16", "1", rundb::run_status::finished, 0.70, 1);
  write_point(files[1], "bf16", "2", rundb::run_status::finished, 0.80, 3);
  write_point(files[2], "fp16", "1", rundb::run_status::diverged, 0.10, 0);
  write_point(files[3], "fp16", "2", rundb::run_status::finished, 0.90, 0);
  const std::vector<rundb::merge_input> inputs{{files[0]}, {files[1]}, {files[2]}, {files[3]}};
  rundb::merge(dir / "all.db", inputs);
  rundb::reader db(dir / "all.db");
  const std::vector<std::string> keys{"precision"};
  const auto groups = rundb::compare_runs(db, keys);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].values, std::vector<std::string>{"bf16"});
  EXPECT_EQ(groups[0].finished, 2u);
  EXPECT_NEAR(groups[0].final_accuracy.mean, 0.75, 1e-15);
  EXPECT_NEAR(groups[0].final_accuracy.sd, std::sqrt(0.005), 1e-15);  // ((0.05^2) * 2 / 1)^(1/2)
  EXPECT_DOUBLE_EQ(groups[0].skipped_steps.mean, 2.0);
  EXPECT_DOUBLE_EQ(groups[0].skipped_steps.sd, std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(groups[0].overflow_events.mean, 1.0);
  EXPECT_EQ(groups[1].diverged, 1u);
  EXPECT_EQ(groups[1].final_accuracy.n, 1u);  // the diverged run's 0.10 is not scored
  EXPECT_DOUBLE_EQ(groups[1].final_accuracy.mean, 0.90);
  const std::vector<std::string> none{"nope"};
  EXPECT_THROW(rundb::compare_runs(db, none), rundb::error);
}

}  // namespace
