// rundb::compare_runs reads reader::run_outcomes (one statement per table)
// since session 9. Checked against two oracles: a table derived by hand for
// a small sweep, and, on 24 runs of every outcome, the per-run queries it
// replaces (evaluations, events and skipped_steps of each finished run).
// One difference from those, on purpose: a last evaluation without an
// accuracy no longer hides an earlier one's (the Compare tab's rule).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "rundb/compare.hpp"
#include "rundb/reader.hpp"
#include "rundb/writer.hpp"
#include "sample_database.hpp"

namespace {

using namespace rundb;

struct run_shape {
  std::vector<coordinate> coordinates;
  run_status status = run_status::finished;
  int steps = 10;
  int skipped = 0;                      // the first `skipped` steps are skipped
  int overflows = 0;                    // overflow events (a nan event is always added)
  std::vector<std::optional<double>> accuracies;  // evaluations at steps 0, 1, ...
};

void write_runs(const std::filesystem::path& file, const std::vector<run_shape>& shapes) {
  writer w(file);
  for (const auto& shape : shapes) {
    const auto id = w.begin_run({.name = "r", .config_yaml = "seed: 1\n", .numlab_version = "test"});
    w.set_coordinates(id, shape.coordinates);
    for (int s = 0; s < shape.steps; ++s) w.add_step({.run = id, .step = s, .loss = 1.0, .skipped = s < shape.skipped});
    for (int e = 0; e < shape.overflows; ++e) w.add_event({id, e, event_kind::overflow, "fc", "inf"});
    w.add_event({id, 0, event_kind::nan, "fc", "nan"});
    for (std::size_t e = 0; e < shape.accuracies.size(); ++e)
      w.add_evaluation({id, 0, static_cast<std::int64_t>(e), 0.5, shape.accuracies[e]});
    w.finish_run(id, shape.status);
  }
}

std::string table_of(reader& db, const std::vector<std::string>& keys) {
  std::ostringstream out;
  write_comparison(keys, compare_runs(db, keys), out);
  return out.str();
}

TEST(RundbCompareOutcomes, SmallSweepGivesTheTableDerivedByHand) {
  rundb_test::scratch_dir dir("compare-table");
  const auto file = dir / "sweep.db";
  const auto at = [](const char* precision, const char* seed) {
    return std::vector<coordinate>{{"precision", precision}, {"seed", seed}};
  };
  write_runs(file, {
      {at("fp16", "1"), run_status::finished, 10, 2, 1, {0.5, 0.8}},
      {at("fp16", "2"), run_status::finished, 10, 4, 3, {0.9}},
      {at("fp16", "3"), run_status::diverged, 10, 0, 9, {0.1}},
      {at("bf16", "1"), run_status::finished, 10, 0, 0, {0.75}},
      {at("bf16", "2"), run_status::killed, 10, 0, 0, {}},
      {{{"seed", "1"}}, run_status::finished, 10, 1, 2, {0.6, std::nullopt}},
  });
  reader db(file);
  // fp16: accuracies 0.8, 0.9: mean 0.85, sd sqrt(2 * 0.05^2 / 1) = 0.0707;
  // overflows 1, 3: 2.0 ± 1.4 (sqrt 2); skipped 2, 4: 3.0 ± 1.4.
  // bf16: one finished run: 0.75, 0, 0, no sd; the killed run is "other".
  // The run without a precision is in group "-", first ('-' sorts before
  // 'b'); its last evaluation has no accuracy, so the one before it counts.
  EXPECT_EQ(table_of(db, {"precision"}),
            "precision  runs  finished  diverged  other  final accuracy   overflow events  skipped steps\n"
            "-          1     1         0         0      0.6000           2.0              1.0\n"
            "bf16       2     1         0         1      0.7500           0.0              0.0\n"
            "fp16       3     2         1         0      0.8500 ± 0.0707  2.0 ± 1.4        3.0 ± 1.4\n"
            "mean ± sd over the finished runs of each group; diverged and other runs are counted, never scored\n");
}

// What compare_runs computed before session 9, run by run: the reference.
std::vector<run_group> compare_run_by_run(reader& db, const std::vector<std::string>& keys) {
  struct samples {
    run_group group;
    std::vector<double> accuracy, overflows, skipped;
  };
  std::map<std::vector<std::string>, samples> groups;
  std::vector<std::vector<std::string>> order;
  for (const auto& run : db.runs()) {
    std::vector<std::string> values;
    const auto coordinates = db.coordinates(run.id);
    for (const auto& key : keys) {
      const auto c = std::find_if(coordinates.begin(), coordinates.end(), [&](const coordinate& x) { return x.key == key; });
      values.push_back(c == coordinates.end() ? "-" : c->value);
    }
    if (!groups.count(values)) order.push_back(values);
    auto& g = groups[values];
    g.group.values = values;
    ++g.group.runs;
    if (run.status == run_status::diverged) {
      ++g.group.diverged;
      continue;
    }
    if (run.status != run_status::finished) {
      ++g.group.other;
      continue;
    }
    ++g.group.finished;
    const auto evaluations = db.evaluations(run.id);
    if (!evaluations.empty() && evaluations.back().accuracy) g.accuracy.push_back(*evaluations.back().accuracy);
    const auto events = db.events(run.id);
    g.overflows.push_back(static_cast<double>(
        std::count_if(events.begin(), events.end(), [](const event_record& e) { return e.kind == event_kind::overflow; })));
    g.skipped.push_back(static_cast<double>(db.skipped_steps(run.id).size()));
  }
  std::vector<run_group> out;
  for (auto& [values, g] : groups) {
    g.group.final_accuracy = mean_and_sd(g.accuracy);
    g.group.overflow_events = mean_and_sd(g.overflows);
    g.group.skipped_steps = mean_and_sd(g.skipped);
    out.push_back(g.group);
  }
  return out;
}

TEST(RundbCompareOutcomes, TwentyFourRunsAgreeWithTheRunByRunQueries) {
  rundb_test::scratch_dir dir("compare-reference");
  const auto file = dir / "sweep.db";
  std::vector<run_shape> shapes;
  const run_status statuses[] = {run_status::finished, run_status::finished, run_status::diverged,
                                 run_status::finished, run_status::failed, run_status::running};
  for (int i = 0; i < 24; ++i) {
    run_shape s;
    s.coordinates = {{"lr", i % 3 == 0 ? "1e-3" : "1e-2"}, {"precision", i % 2 ? "bf16" : "fp16"},
                     {"seed", std::to_string(i / 4 + 1)}};
    if (i == 23) s.coordinates.erase(s.coordinates.begin() + 1);  // one run without a precision
    s.status = statuses[i % 6];
    s.steps = 5 + i;
    s.skipped = (i * 7) % 5;
    s.overflows = (i * 5) % 4;
    for (int e = 0; e <= i % 3; ++e) s.accuracies.push_back(0.5 + 0.01 * (i * 3 + e));
    if (i % 8 == 5) s.accuracies.clear();
    shapes.push_back(s);
  }
  write_runs(file, shapes);
  reader db(file);
  for (const auto& keys : {std::vector<std::string>{"precision"}, std::vector<std::string>{"precision", "lr"},
                           std::vector<std::string>{"seed"}}) {
    const auto got = compare_runs(db, keys);
    auto want = compare_run_by_run(db, keys);
    // The reference groups in std::map order; compare_runs sorts numbers numerically.
    ASSERT_EQ(got.size(), want.size());
    for (const auto& g : got) {
      const auto w = std::find_if(want.begin(), want.end(), [&](const run_group& x) { return x.values == g.values; });
      ASSERT_NE(w, want.end()) << g.values.front();
      EXPECT_EQ(g.runs, w->runs);
      EXPECT_EQ(g.finished, w->finished);
      EXPECT_EQ(g.diverged, w->diverged);
      EXPECT_EQ(g.other, w->other);
      for (const auto& [a, b] : {std::pair{g.final_accuracy, w->final_accuracy}, std::pair{g.overflow_events, w->overflow_events},
                                 std::pair{g.skipped_steps, w->skipped_steps}}) {
        EXPECT_EQ(a.n, b.n);
        EXPECT_EQ(a.mean, b.mean);  // the same values summed in the same order: bit for bit
        EXPECT_EQ(a.sd, b.sd);
      }
    }
  }
}

}  // namespace
