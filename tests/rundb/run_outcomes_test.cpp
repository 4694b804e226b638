// reader::run_outcomes (and run_outcomes_without_curves) against two oracles: hand-derived curves and counts
// of small runs, and, on runs of every shape, the per-run queries it
// replaces (steps with max_points, last_step, evaluations, events,
// skipped_steps), which SQLite answers by another path (grouped SQL).
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include "rundb/reader.hpp"
#include "rundb/writer.hpp"
#include "sample_database.hpp"

namespace {

using namespace rundb;

run_id add_run(writer& w, const std::string& name) {
  run_info info;
  info.name = name;
  info.config_yaml = "model: mlp\n";
  info.numlab_version = "test";
  return w.begin_run(info);
}

void add_step(writer& w, run_id run, std::int64_t step, std::optional<double> loss, bool skipped = false) {
  step_record s;
  s.run = run;
  s.step = step;
  s.epoch = step / 10;
  s.loss = loss;
  s.skipped = skipped;
  if (skipped) s.skip_reason = "overflow";
  w.add_step(s);
}

void add_event(writer& w, run_id run, std::int64_t step, event_kind kind) {
  w.add_event({run, step, kind, "fc", "test event"});
}

void add_evaluation(writer& w, run_id run, std::int64_t step, std::optional<double> accuracy) {
  evaluation_record e;
  e.run = run;
  e.step = step;
  e.epoch = step / 10;
  e.loss = 1.0;
  e.accuracy = accuracy;
  w.add_evaluation(e);
}

TEST(RunOutcomes, SmallRunsMatchHandDerivedValues) {
  rundb_test::scratch_dir dir("outcomes-small");
  const auto file = dir / "small.db";
  run_id ten = 0, empty = 0, sparse = 0;
  {
    writer w(file);
    // Ten steps, loss = step, step 3 skipped, step 5 without a loss.
    ten = add_run(w, "ten");
    for (std::int64_t s = 0; s < 10; ++s)
      add_step(w, ten, s, s == 5 ? std::nullopt : std::optional<double>(static_cast<double>(s)), s == 3);
    add_event(w, ten, 3, event_kind::overflow);
    add_event(w, ten, 3, event_kind::skipped);
    add_event(w, ten, 7, event_kind::nan);
    add_event(w, ten, 8, event_kind::overflow);
    add_evaluation(w, ten, 4, 0.5);
    add_evaluation(w, ten, 9, 0.75);
    add_evaluation(w, ten, 9, std::nullopt);  // later, but without an accuracy
    w.set_coordinates(ten, {{"seed", "1"}, {"precision", "bf16"}});
    w.finish_run(ten, run_status::finished);
    empty = add_run(w, "empty");
    w.finish_run(empty, run_status::failed);
    // The last step has no loss: no final loss, though earlier steps had one.
    sparse = add_run(w, "sparse");
    add_step(w, sparse, 100, 4.0);
    add_step(w, sparse, 250, std::nullopt);
  }
  reader db(file);
  const auto outcomes = db.run_outcomes(4);
  ASSERT_EQ(outcomes.size(), 3u);

  const auto& t = outcomes[0];
  EXPECT_EQ(t.run.id, ten);
  EXPECT_EQ(t.run.status, run_status::finished);
  // Sorted by key.
  EXPECT_EQ(t.coordinates, (std::vector<coordinate>{{"precision", "bf16"}, {"seed", "1"}}));
  // 10 steps over 4 points: floor(9 / 2) = 4 >= 4 > floor(9 / 4) = 2, so
  // buckets of 4 steps aligned to multiples of 4: {0,1,2,3} -> 1.5,
  // {4,5,6,7} -> (4+6+7)/3 (5 has no loss), {8,9} -> 8.5.
  EXPECT_EQ(t.loss_curve, (std::vector<loss_point>{{0, 1.5}, {4, 17.0 / 3}, {8, 8.5}}));
  EXPECT_EQ(t.final_loss, 9.0);
  EXPECT_EQ(t.final_accuracy, 0.75);
  EXPECT_EQ(t.steps, 10);
  EXPECT_EQ(t.skipped_steps, 1);
  EXPECT_EQ(t.overflow_events, 2);
  EXPECT_EQ(t.nan_events, 1);

  const auto& e = outcomes[1];
  EXPECT_EQ(e.run.id, empty);
  EXPECT_EQ(e.run.status, run_status::failed);
  EXPECT_TRUE(e.coordinates.empty());
  EXPECT_TRUE(e.loss_curve.empty());
  EXPECT_FALSE(e.final_loss);
  EXPECT_FALSE(e.final_accuracy);
  EXPECT_EQ(e.steps, 0);
  EXPECT_EQ(e.overflow_events + e.nan_events + e.skipped_steps, 0);

  const auto& s = outcomes[2];
  EXPECT_EQ(s.run.status, run_status::running);
  EXPECT_EQ(s.loss_curve, (std::vector<loss_point>{{100, 4.0}}));
  EXPECT_FALSE(s.final_loss);
  EXPECT_EQ(s.steps, 2);

  // Without curves: the same counts, and the final loss of the largest step
  // (none for "sparse", whose last step recorded no loss).
  const auto bare = db.run_outcomes_without_curves();
  ASSERT_EQ(bare.size(), 3u);
  EXPECT_TRUE(bare[0].loss_curve.empty());
  EXPECT_EQ(bare[0].final_loss, 9.0);
  EXPECT_EQ(bare[0].final_accuracy, 0.75);
  EXPECT_EQ(bare[0].steps, 10);
  EXPECT_EQ(bare[0].skipped_steps, 1);
  EXPECT_EQ(bare[0].overflow_events, 2);
  EXPECT_EQ(bare[0].coordinates, t.coordinates);
  EXPECT_EQ(bare[1].steps, 0);
  EXPECT_FALSE(bare[1].final_loss);
  EXPECT_FALSE(bare[2].final_loss);
  EXPECT_EQ(bare[2].steps, 2);

  // Progress: as the scan leaves "ten" (1 of 3), "sparse" (3: "empty", without
  // steps, is passed with it), then the end.
  std::vector<std::pair<std::size_t, std::size_t>> told;
  db.run_outcomes(4, [&](std::size_t read, std::size_t runs) { told.emplace_back(read, runs); });
  EXPECT_EQ(told, (std::vector<std::pair<std::size_t, std::size_t>>{{1, 3}, {3, 3}, {3, 3}}));

  // Without a limit (or under it) every step with a loss is a point.
  const auto all = db.run_outcomes(0);
  EXPECT_EQ(all[0].loss_curve.size(), 9u);
  EXPECT_EQ(db.run_outcomes(10)[0].loss_curve, all[0].loss_curve);
}

TEST(RunOutcomes, AgreeWithThePerRunQueries) {
  rundb_test::scratch_dir dir("outcomes-per-run");
  const auto file = dir / "many.db";
  {
    writer w(file);
    // Runs of 1 to 1201 steps, starting anywhere, with gaps, missing losses,
    // skips and events; some with coordinates.
    for (int r = 0; r < 24; ++r) {
      const run_id id = add_run(w, "run" + std::to_string(r));
      const std::int64_t first = 7 * r, count = 1 + 50 * r, stride = 1 + r % 3;
      for (std::int64_t k = 0; k < count; ++k) {
        const std::int64_t step = first + k * stride;
        const bool no_loss = (step + r) % 11 == 0;
        add_step(w, id, step, no_loss ? std::nullopt : std::optional<double>(std::sin(0.01 * step) + 2.0 + r),
                 step % 13 == 5);
        if (step % 29 == 3) add_event(w, id, step, event_kind::overflow);
        if (step % 31 == 4) add_event(w, id, step, event_kind::nan);
        if (step % 37 == 6) add_event(w, id, step, event_kind::warning);
        if (k % 100 == 99) add_evaluation(w, id, step, k % 300 == 299 ? std::nullopt : std::optional<double>(0.001 * k));
      }
      if (r % 2 == 0) w.set_coordinates(id, {{"seed", std::to_string(r % 5)}, {"loss_scaling", "dynamic"}});
      w.finish_run(id, r % 7 == 3 ? run_status::diverged : run_status::finished);
    }
  }
  reader db(file);
  const auto runs = db.runs();
  // Every field but the loss curve, against the per-run queries.
  const auto expect_per_run_fields = [&](const run_outcome& o, const run_info& info) {
    const run_id id = info.id;
    SCOPED_TRACE("run " + std::to_string(id));
    EXPECT_EQ(o.run.id, id);
    EXPECT_EQ(o.run.name, info.name);
    EXPECT_EQ(o.run.status, info.status);
    EXPECT_EQ(o.coordinates, db.coordinates(id));
    const auto last = db.last_step(id);
    EXPECT_EQ(o.final_loss, last ? last->loss : std::nullopt);
    std::optional<double> accuracy;
    for (const auto& e : db.evaluations(id))
      if (e.accuracy) accuracy = e.accuracy;
    EXPECT_EQ(o.final_accuracy, accuracy);
    EXPECT_EQ(o.steps, db.step_count(id));
    EXPECT_EQ(o.skipped_steps, static_cast<std::int64_t>(db.skipped_steps(id).size()));
    std::int64_t overflows = 0, nans = 0;
    for (const auto& e : db.events(id)) {
      overflows += e.kind == event_kind::overflow;
      nans += e.kind == event_kind::nan;
    }
    EXPECT_EQ(o.overflow_events, overflows);
    EXPECT_EQ(o.nan_events, nans);
  };
  for (const std::size_t max_points : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{400}}) {
    SCOPED_TRACE("max_points " + std::to_string(max_points));
    const auto outcomes = db.run_outcomes(max_points);
    ASSERT_EQ(outcomes.size(), runs.size());
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const auto& o = outcomes[i];
      expect_per_run_fields(o, runs[i]);
      std::vector<step_record> expected;
      for (auto& s : db.steps(runs[i].id, {}, max_points))
        if (s.loss) expected.push_back(s);
      ASSERT_EQ(o.loss_curve.size(), expected.size());
      for (std::size_t k = 0; k < expected.size(); ++k) {
        EXPECT_EQ(o.loss_curve[k].step, expected[k].step);
        // SQLite's avg() may add a bucket's losses in another order.
        EXPECT_NEAR(o.loss_curve[k].loss, *expected[k].loss, 1e-13 * std::abs(*expected[k].loss));
      }
    }
  }
  SCOPED_TRACE("without curves");
  const auto bare = db.run_outcomes_without_curves();
  ASSERT_EQ(bare.size(), runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    expect_per_run_fields(bare[i], runs[i]);
    EXPECT_TRUE(bare[i].loss_curve.empty());
  }
}

}  // namespace
