// Round trip: what the writer stores, the reader returns; bad files get clear errors.
#include <array>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "rundb/errors.hpp"
#include "rundb/reader.hpp"
#include "rundb/schema.hpp"
#include "sample_database.hpp"

namespace {

using namespace rundb_test;

TEST(RundbReader, RunsCarryConfigAndStatus) {
  scratch_dir dir("runs");
  const auto id = write_sample(dir / "run.db");
  rundb::reader r(dir / "run.db");
  const auto runs = r.runs();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].id, id);
  EXPECT_EQ(runs[0].name, "baseline");
  EXPECT_EQ(runs[0].config_yaml, "model: tiny\nlr: 0.1\n");
  EXPECT_EQ(runs[0].numlab_version, "0.1.0");
  EXPECT_EQ(runs[0].status, rundb::run_status::finished);
  EXPECT_FALSE(runs[0].host.empty());
  EXPECT_EQ(runs[0].start_time.size(), 20u);  // 2026-01-01T00:00:00Z
  EXPECT_FALSE(runs[0].end_time.empty());
  EXPECT_EQ(runs[1].status, rundb::run_status::running);
  EXPECT_TRUE(runs[1].end_time.empty());
  EXPECT_THROW(r.run(999), rundb::error);
}

TEST(RundbReader, StepsRoundTrip) {
  scratch_dir dir("steps");
  const auto id = write_sample(dir / "run.db");
  rundb::reader r(dir / "run.db");
  const auto steps = r.steps(id);
  ASSERT_EQ(steps.size(), static_cast<std::size_t>(sample_steps));
  EXPECT_EQ(r.step_count(id), sample_steps);
  for (std::int64_t s = 0; s < sample_steps; ++s) {
    const auto& st = steps[static_cast<std::size_t>(s)];
    EXPECT_EQ(st.step, s);
    EXPECT_EQ(st.epoch, s / 10);
    EXPECT_DOUBLE_EQ(*st.loss, sample_loss(s));
    EXPECT_DOUBLE_EQ(*st.loss_scale, sample_scale(s));
    EXPECT_EQ(st.skipped, sample_skipped(s));
    EXPECT_EQ(st.skip_reason.empty(), !sample_skipped(s));
  }
  const auto skipped = r.skipped_steps(id);
  ASSERT_EQ(skipped.size(), 2u);  // steps 16 and 33
  EXPECT_EQ(skipped[0].step, 16);
  EXPECT_EQ(skipped[1].step, 33);
  EXPECT_EQ(r.last_step(id)->step, sample_steps - 1);
  const auto range = r.steps(id, {10, 19});
  ASSERT_EQ(range.size(), 10u);
  EXPECT_EQ(range.front().step, 10);
}

TEST(RundbReader, DecimatedStepsAverageLossAndKeepMinimumScale) {
  scratch_dir dir("decimate");
  const auto id = write_sample(dir / "run.db");
  rundb::reader r(dir / "run.db");
  // 50 steps into at most 10 points: floor(49 / 4) = 12 >= 10 > floor(49 / 8) = 6,
  // so buckets of 8 steps aligned to multiples of 8, the last one 48..49.
  const auto buckets = r.steps(id, {}, 10);
  ASSERT_EQ(buckets.size(), 7u);
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    const auto first = static_cast<std::int64_t>(b * 8);
    const std::int64_t last = std::min<std::int64_t>(first + 7, sample_steps - 1);
    const auto n = static_cast<double>(last - first + 1);
    double mean = 0, min_scale = 1e300;
    bool any_skipped = false;
    for (std::int64_t s = first; s <= last; ++s) {
      mean += sample_loss(s) / n;
      min_scale = std::min(min_scale, sample_scale(s));
      any_skipped = any_skipped || sample_skipped(s);
    }
    EXPECT_EQ(buckets[b].step, first);
    EXPECT_EQ(buckets[b].epoch, first / 10);
    EXPECT_NEAR(*buckets[b].loss, mean, 1e-12);
    EXPECT_DOUBLE_EQ(*buckets[b].loss_scale, min_scale);
    EXPECT_EQ(buckets[b].skipped, any_skipped);
    EXPECT_EQ(buckets[b].skip_reason, any_skipped ? "inf in grad_weight of conv2" : "");
    EXPECT_DOUBLE_EQ(*buckets[b].lr, 0.1);
    // grad_norm is 1 + step: the mean of consecutive steps is their middle.
    EXPECT_DOUBLE_EQ(*buckets[b].grad_norm, 1.0 + static_cast<double>(first + last) / 2);
    EXPECT_DOUBLE_EQ(*buckets[b].wall_time, 0.01 * static_cast<double>(last));  // the last step's
  }
  // A range merges only its own steps: 10..29 in at most 4 points, buckets of
  // 8 (floor(29 / 8) - floor(10 / 8) = 2 < 4 <= 7 - 2): 10..15, 16..23, 24..29.
  const auto part = r.steps(id, {10, 29}, 4);
  ASSERT_EQ(part.size(), 3u);
  EXPECT_EQ(part.front().step, 10);
  EXPECT_EQ(part.back().step, 24);
  EXPECT_DOUBLE_EQ(*part.back().grad_norm, 1.0 + 26.5);
  EXPECT_EQ(r.steps(id, {}, 100).size(), static_cast<std::size_t>(sample_steps));
}

TEST(RundbReader, TensorStatsAndHistogramsRoundTrip) {
  scratch_dir dir("stats");
  const auto id = write_sample(dir / "run.db");
  rundb::reader r(dir / "run.db");
  EXPECT_EQ(r.layers(id), sample_layers());
  EXPECT_EQ(r.roles(id), (std::vector<std::string>{"grad_weight", "update"}));
  const auto steps = r.stats_steps(id, "update");
  ASSERT_EQ(steps.size(), 10u);
  EXPECT_EQ(steps[3], 15);

  const auto conv2 = r.tensor_stats({.run = id, .layer = "conv2", .role = "grad_weight", .steps = {10, 30}});
  ASSERT_EQ(conv2.size(), 5u);
  for (const auto& t : conv2) {
    EXPECT_EQ(t.overflows, sample_overflows(t.step, 1));
    EXPECT_EQ(t.underflows, 2u);
    EXPECT_EQ(t.count, 1000u);
    EXPECT_DOUBLE_EQ(t.max_abs, 200.0);
    EXPECT_TRUE(t.hist.bins.empty());  // histograms only on request
  }
  const auto all = r.tensor_stats({.run = id, .with_histograms = true});
  EXPECT_EQ(all.size(), 10u * 3 * 2);
  EXPECT_EQ(all.front().hist.bins, sample_bins(0, 0));
  for (const auto& t : all) {
    if (t.role == "update") {
      EXPECT_EQ(t.ulp_ratio.first_exponent, -8);
      EXPECT_EQ(t.ulp_ratio.bins, sample_ulp_ratio_bins(t.step, t.layer == "conv1" ? 0 : t.layer == "conv2" ? 1 : 2));
    } else {
      EXPECT_TRUE(t.ulp_ratio.bins.empty());
    }
  }

  const auto h = r.histogram(id, "fc", "grad_weight", 23);  // latest step <= 23 is 20
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->step, 20);
  EXPECT_EQ(h->hist.first_exponent, -24);
  EXPECT_EQ(h->hist.bins, sample_bins(20, 2));
  EXPECT_EQ(h->hist.binade_count(), 40u);
  EXPECT_FALSE(r.histogram(id, "fc", "grad_weight", -1).has_value());
  EXPECT_FALSE(r.histogram(id, "nope", "grad_weight", 20).has_value());
}

TEST(RundbReader, TotalsByLayerSumOverSteps) {
  scratch_dir dir("totals");
  const auto id = write_sample(dir / "run.db");
  rundb::reader r(dir / "run.db");
  const auto totals = r.totals_by_layer(id);
  ASSERT_EQ(totals.size(), 6u);
  for (const auto& t : totals) {
    const auto l = static_cast<std::size_t>(
        std::find(sample_layers().begin(), sample_layers().end(), t.layer) - sample_layers().begin());
    std::uint64_t overflows = 0;
    for (std::int64_t s = 0; s < sample_steps; s += sample_stats_every) overflows += sample_overflows(s, l);
    EXPECT_EQ(t.records, 10);
    EXPECT_EQ(t.count, 10000u);
    EXPECT_EQ(t.overflows, overflows);
    EXPECT_EQ(t.swamped, t.role == "update" ? 100 * l : 0u);
  }
}

TEST(RundbReader, CountsByLayerAndStepKeepTheWorstStepWhenMerging) {
  scratch_dir dir("grid");
  const auto id = write_sample(dir / "run.db");
  rundb::reader r(dir / "run.db");
  const auto cells = r.counts_by_layer_and_step(id, "grad_weight", rundb::counted_stat::overflows);
  ASSERT_EQ(cells.size(), 10u * 3);
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const auto layer = i % 3;
    EXPECT_EQ(cells[i].layer, sample_layers()[layer]);
    EXPECT_EQ(cells[i].step, static_cast<std::int64_t>(i / 3) * sample_stats_every);
    EXPECT_EQ(cells[i].worst_step, cells[i].step);
    EXPECT_EQ(cells[i].role, "grad_weight");
    EXPECT_EQ(cells[i].counted, static_cast<double>(sample_overflows(cells[i].step, layer)));
    EXPECT_EQ(cells[i].values, 1000.0);
  }
  // Steps 0..45 into at most 4 columns: floor(45 / 8) = 5 >= 4 > floor(45 / 16)
  // = 2, so columns of 16 steps starting at 0, 16, 32. Each keeps its worst
  // step (max, not mean): overflows grow with the step, so the column's last
  // recorded step.
  const auto merged = r.counts_by_layer_and_step(id, "grad_weight", rundb::counted_stat::overflows, 4);
  ASSERT_EQ(merged.size(), 3u * 3);
  const std::vector<std::int64_t> worst{15, 30, 45};
  for (std::size_t b = 0; b < worst.size(); ++b) {
    const auto& fc = merged[b * 3 + 2];
    EXPECT_EQ(fc.layer, "fc");
    EXPECT_EQ(fc.step, static_cast<std::int64_t>(b) * 16);
    EXPECT_EQ(fc.worst_step, worst[b]);
    EXPECT_EQ(fc.counted, static_cast<double>(sample_overflows(worst[b], 2)));
    EXPECT_EQ(fc.values, 1000.0);
  }
  const auto swamped = r.counts_by_layer_and_step(id, "update", rundb::counted_stat::swamped);
  EXPECT_EQ(swamped[2].counted, 20.0);  // fc: 10 * layer index
  EXPECT_TRUE(r.counts_by_layer_and_step(id, "activation", rundb::counted_stat::nans, 4).empty());
  // Every role: each cell keeps the role with the highest fraction (only
  // updates are swamped; on a tie, here conv1's zeros, the first written).
  const auto all_roles = r.counts_by_layer_and_step(id, "", rundb::counted_stat::swamped);
  ASSERT_EQ(all_roles.size(), 10u * 3);
  EXPECT_EQ(all_roles[0].role, "grad_weight");
  EXPECT_EQ(all_roles[2].role, "update");
  EXPECT_EQ(all_roles[2].counted, 20.0);
}

TEST(RundbReader, LayersComeInOrderOfFirstAppearanceAndOnlyFromTheirRun) {
  scratch_dir dir("layer-order");
  rundb::run_id id = 0;
  {
    rundb::writer w(dir / "run.db");
    const auto other = w.begin_run({.name = "other", .config_yaml = "x: 1\n", .numlab_version = "0.1.0"});
    w.add_tensor_stats({.run = other, .step = 0, .layer = "zz-other", .op = "dense", .role = "weight", .format = "fp16"});
    id = w.begin_run({.name = "run", .config_yaml = "x: 1\n", .numlab_version = "0.1.0"});
    // "mid" then "early" at step 0 (written in that order), "aaa" only from
    // step 3 and only as an activation, "late" from step 5.
    for (std::int64_t s = 0; s < 8; ++s) {
      for (const char* layer : {"mid", "early", "aaa", "late"}) {
        if ((std::string(layer) == "aaa" && s < 3) || (std::string(layer) == "late" && s < 5)) continue;
        const char* role = std::string(layer) == "aaa" ? "activation" : "weight";
        w.add_tensor_stats({.run = id, .step = s, .layer = layer, .op = "dense", .role = role, .format = "fp16"});
      }
    }
    w.flush();
  }
  rundb::reader r(dir / "run.db");
  EXPECT_EQ(r.layers(id), (std::vector<std::string>{"mid", "early", "aaa", "late"}));
  EXPECT_EQ(r.roles(id), (std::vector<std::string>{"activation", "weight"}));
  EXPECT_EQ(r.roles(id, "aaa"), (std::vector<std::string>{"activation"}));
  EXPECT_TRUE(r.layers(id + 1).empty());
}

TEST(RundbReader, SeveralCountsInOneScanPoolEachByItsOwnWorstStep) {
  scratch_dir dir("grid-several");
  const auto id = write_sample(dir / "run.db");
  rundb::reader r(dir / "run.db");
  const std::array stats{rundb::counted_stat::overflows, rundb::counted_stat::swamped};
  const auto both = r.counts_by_layer_and_step(id, "update", stats, 4);
  ASSERT_EQ(both.size(), 2u);
  ASSERT_EQ(both[0].size(), 3u * 3);
  ASSERT_EQ(both[1].size(), 3u * 3);
  // Columns of 16 steps from 0. Overflows grow with the step: the column's
  // last recorded step. Swamped counts are constant (10 * layer index), so
  // ties keep the column's first recorded step.
  const std::vector<std::int64_t> worst_overflow{15, 30, 45}, worst_swamped{0, 20, 35};
  for (std::size_t b = 0; b < 3; ++b) {
    const auto& overflow = both[0][b * 3 + 2];
    const auto& swamped = both[1][b * 3 + 2];
    EXPECT_EQ(overflow.layer, "fc");
    EXPECT_EQ(overflow.step, static_cast<std::int64_t>(b) * 16);
    EXPECT_EQ(overflow.worst_step, worst_overflow[b]);
    EXPECT_EQ(overflow.counted, static_cast<double>(sample_overflows(worst_overflow[b], 2)));
    EXPECT_EQ(swamped.step, static_cast<std::int64_t>(b) * 16);
    EXPECT_EQ(swamped.worst_step, worst_swamped[b]);
    EXPECT_EQ(swamped.counted, 20.0);
    EXPECT_EQ(swamped.values, 1000.0);
  }
}

TEST(RundbReader, RaisedInterruptFlagStopsQueries) {
  scratch_dir dir("interrupt");
  const auto id = write_sample(dir / "run.db");
  std::atomic<bool> interrupt{false};
  rundb::reader r(dir / "run.db", &interrupt);
  EXPECT_EQ(r.layers(id).size(), 3u);
  EXPECT_EQ(r.roles(id, "fc"), (std::vector<std::string>{"grad_weight", "update"}));
  EXPECT_TRUE(r.roles(id, "no-such-layer").empty());
  interrupt = true;
  EXPECT_THROW(r.tensor_stats({.run = id, .with_histograms = true}), rundb::interrupted);
  interrupt = false;
  EXPECT_EQ(r.tensor_stats({.run = id}).size(), 10u * 3 * 2);
}

TEST(RundbReader, EventsEvaluationsShadowErrorsAndFormats) {
  scratch_dir dir("events");
  const auto id = write_sample(dir / "run.db");
  rundb::reader r(dir / "run.db");
  const auto events = r.events(id);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].kind, rundb::event_kind::skipped);
  EXPECT_EQ(events[0].step, 16);
  EXPECT_EQ(events[0].layer, "conv2");
  EXPECT_EQ(events[1].kind, rundb::event_kind::skipped);  // step 33, written before the warning
  EXPECT_EQ(events[1].step, 33);
  EXPECT_EQ(events[2].kind, rundb::event_kind::warning);
  EXPECT_EQ(events[2].message, "epsilon not representable");
  EXPECT_TRUE(events[2].layer.empty());

  const auto evals = r.evaluations(id);
  ASSERT_EQ(evals.size(), 5u);
  EXPECT_EQ(evals[2].step, 29);
  EXPECT_DOUBLE_EQ(evals[2].loss, sample_loss(29) * 1.1);
  EXPECT_DOUBLE_EQ(*evals[2].accuracy, 0.79);

  const auto shadow = r.shadow_errors(id, "fc");
  ASSERT_EQ(shadow.size(), 1u);
  EXPECT_DOUBLE_EQ(shadow[0].rel_error, 1e-3);
  EXPECT_TRUE(r.shadow_errors(id, "conv1").empty());

  const auto f16 = r.format("binary16");
  ASSERT_TRUE(f16.has_value());
  EXPECT_EQ(f16->min_exponent(), -24);
  EXPECT_EQ(r.format("bfloat16")->emax, 127);  // built in, not declared
  EXPECT_FALSE(r.format("mystery").has_value());
}

TEST(RundbReader, UndeclaredFormatsResolveByTheNamesTheTrainerWrites) {
  // The trainer stores num::format_name: fp16, bf16, fp32, e4m3, e5m2, tf32.
  scratch_dir dir("formats");
  write_sample(dir / "run.db");
  rundb::reader r(dir / "run.db");
  const auto fp16 = r.format("fp16");
  ASSERT_TRUE(fp16.has_value());
  EXPECT_EQ(fp16->precision, 11);
  EXPECT_EQ(fp16->min_exponent(), -24);
  ASSERT_TRUE(r.format("bf16").has_value());
  EXPECT_EQ(r.format("bf16")->precision, 8);
  EXPECT_EQ(r.format("bf16")->emin, -126);
  ASSERT_TRUE(r.format("fp32").has_value());
  EXPECT_EQ(r.format("fp32")->precision, 24);
  ASSERT_TRUE(r.format("e4m3").has_value());
  EXPECT_FALSE(r.format("e4m3")->infinities);
  EXPECT_EQ(r.format("e4m3")->emax, 8);
  EXPECT_EQ(r.format("e5m2")->min_exponent(), -16);
  EXPECT_EQ(r.format("tf32")->precision, 11);
}

TEST(RundbReader, ReadTableExportsEveryTable) {
  scratch_dir dir("table");
  const auto id = write_sample(dir / "run.db");
  rundb::reader r(dir / "run.db");
  for (const auto& name : rundb::reader::table_names()) EXPECT_NO_THROW(r.read_table(name)) << name;
  const auto steps = r.read_table("steps", id);
  EXPECT_EQ(steps.rows.size(), static_cast<std::size_t>(sample_steps));
  EXPECT_EQ(steps.columns[1], "step");
  const auto stats = r.read_table("tensor_stats", id);
  const auto hist_column = static_cast<std::size_t>(
      std::find(stats.columns.begin(), stats.columns.end(), "histogram") - stats.columns.begin());
  ASSERT_LT(hist_column, stats.columns.size());
  EXPECT_EQ(std::get<std::vector<std::uint64_t>>(stats.rows[0][hist_column]), sample_bins(0, 0));
  EXPECT_EQ(r.read_table("steps").rows.size(), static_cast<std::size_t>(sample_steps + 5));
  EXPECT_THROW(r.read_table("sqlite_schema"), rundb::error);
}

TEST(RundbReader, RejectsFilesThatAreNotRunDatabases) {
  scratch_dir dir("foreign");
  EXPECT_THROW(rundb::reader(dir / "missing.db"), rundb::not_a_run_database);
  write_file(dir / "text.db", "hello, I am a text file and not SQLite at all, not even close.\n");
  EXPECT_THROW(rundb::reader(dir / "text.db"), rundb::not_a_run_database);
  write_file(dir / "empty.db", "");
  EXPECT_THROW(rundb::reader(dir / "empty.db"), rundb::not_a_run_database);
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir / "foreign.db").c_str(), &db), SQLITE_OK);
    sqlite3_exec(db, "CREATE TABLE t(x); INSERT INTO t VALUES (1);", nullptr, nullptr, nullptr);
    sqlite3_close(db);
  }
  try {
    rundb::reader r(dir / "foreign.db");
    FAIL() << "a foreign SQLite file was accepted";
  } catch (const rundb::not_a_run_database& e) {
    EXPECT_NE(std::string(e.what()).find("foreign.db"), std::string::npos) << e.what();
  }
  EXPECT_THROW(rundb::writer(dir / "foreign.db"), rundb::not_a_run_database);
  EXPECT_THROW(rundb::writer(dir / "text.db"), rundb::not_a_run_database);
}

TEST(RundbReader, RejectsNewerSchema) {
  scratch_dir dir("newer");
  write_sample(dir / "run.db");
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir / "run.db").c_str(), &db), SQLITE_OK);
    const std::string sql = "PRAGMA user_version = " + std::to_string(rundb::schema_version + 1);
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  try {
    rundb::reader r(dir / "run.db");
    FAIL() << "a newer schema was accepted";
  } catch (const rundb::newer_schema& e) {
    EXPECT_NE(std::string(e.what()).find("newer"), std::string::npos) << e.what();
  }
  EXPECT_THROW(rundb::writer(dir / "run.db"), rundb::newer_schema);
}

TEST(RundbReader, VersionOneFilesStayReadableButTakeNoNewRuns) {
  // A version 1 file: the same tables, with the header and meta saying 1.
  scratch_dir dir("older");
  const auto id = write_sample(dir / "run.db");
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir / "run.db").c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 1; UPDATE meta SET value = '1' WHERE key = 'schema_version'",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  rundb::reader r(dir / "run.db");
  EXPECT_EQ(r.runs().front().status, rundb::run_status::finished);
  EXPECT_EQ(r.steps(id).size(), static_cast<std::size_t>(sample_steps));
  try {
    rundb::writer w(dir / "run.db");
    FAIL() << "the writer appended to a version 1 file";
  } catch (const rundb::error& e) {
    EXPECT_NE(std::string(e.what()).find("older numlab"), std::string::npos) << e.what();
  }
}

TEST(RundbWriter, DivergedStatusIsStored) {
  scratch_dir dir("diverged");
  {
    rundb::writer w(dir / "run.db");
    const auto id = w.begin_run({.name = "d"});
    w.finish_run(id, rundb::run_status::diverged);
  }
  rundb::reader r(dir / "run.db");
  EXPECT_EQ(r.runs().front().status, rundb::run_status::diverged);
}

TEST(RundbReader, DataVersionChangesWhenAnotherConnectionCommits) {
  scratch_dir dir("live");
  rundb::writer w(dir / "run.db");
  const auto id = w.begin_run({.name = "live"});
  rundb::reader r(dir / "run.db");
  const auto before = r.data_version();
  EXPECT_EQ(r.data_version(), before);
  w.add_step({.run = id, .step = 0, .loss = 1.0});
  w.flush();
  EXPECT_NE(r.data_version(), before);
  EXPECT_EQ(r.step_count(id), 1);
}

}  // namespace
