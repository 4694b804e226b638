// Issue 18, defect 1: a live refresh reads only what the run appended. After
// k new steps the Overview, Map and Events refreshes read a number of rows fixed
// by k and the width of the held buckets (counted by rundb::reader::rows_read,
// derived by hand below), the same for a run of 200 steps as for one of
// 2000 or 10,000, and end with exactly what a full read of the file gives.
#include <QSignalSpy>
#include <QTest>

#include <vector>

#include "../rundb/sample_database.hpp"
#include "events_view.hpp"
#include "live_queries.hpp"
#include "record_steps.hpp"
#include "map_view.hpp"
#include "overview_view.hpp"
#include "run_queries.hpp"
#include "rundb/writer.hpp"

using namespace numlab_gui;
using gui_test::steps_of;

namespace {

struct row {
  std::int64_t step;
  int tag;
};

std::vector<std::pair<std::int64_t, int>> rows_of(const std::vector<row>& rows) {
  std::vector<std::pair<std::int64_t, int>> out;
  for (const auto& r : rows) out.emplace_back(r.step, r.tag);
  return out;
}

// Steps first..last of a live run: loss = step, step 5 and first + 3 skipped,
// an event at every 4th step (two at step 8 and at first + 4).
void write_steps(rundb::writer& w, rundb::run_id run, std::int64_t first, std::int64_t last, std::int64_t extra_skip) {
  for (std::int64_t s = first; s <= last; ++s) {
    const bool skipped = s == 5 || s == extra_skip;
    w.add_step({.run = run, .step = s, .loss = static_cast<double>(s), .skipped = skipped,
                .skip_reason = skipped ? "inf in grad" : ""});
    if (s % 4 == 0) w.add_event({run, s, rundb::event_kind::warning, "fc", "event at " + std::to_string(s)});
    if (s == 8 || (extra_skip >= 0 && s == extra_skip + 1)) w.add_event({run, s, rundb::event_kind::overflow, "fc", "second"});
  }
  w.flush();
}

// The plotted points of two series, field by field, and their skipped steps.
void expect_same_points(const overview_series& got, const overview_series& want) {
  QCOMPARE(got.width, want.width);
  QCOMPARE(got.total_steps, want.total_steps);
  QCOMPARE(got.steps.size(), want.steps.size());
  for (std::size_t i = 0; i < got.steps.size(); ++i) {
    const auto &a = got.steps[i], &b = want.steps[i];
    QCOMPARE(a.step, b.step);
    QCOMPARE(a.epoch, b.epoch);
    QCOMPARE(a.loss, b.loss);  // bit for bit: the same sums in the same order
    QCOMPARE(a.loss_scale, b.loss_scale);
    QCOMPARE(a.skipped, b.skipped);
    QCOMPARE(a.skip_reason, b.skip_reason);
    QCOMPARE(a.lr, b.lr);
    QCOMPARE(a.grad_norm, b.grad_norm);
    QCOMPARE(a.wall_time, b.wall_time);
  }
  QCOMPARE(steps_of(got.skipped), steps_of(want.skipped));
  QCOMPARE(steps_of(got.evaluations), steps_of(want.evaluations));
}

std::vector<std::string> messages_of(const std::vector<rundb::event_record>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) out.push_back(std::to_string(e.step) + " " + e.message);
  return out;
}

void expect_same_grid(const map_grid& got, const map_grid& want) {
  QCOMPARE(got.column_steps, want.column_steps);
  QCOMPARE(got.steps, want.steps);
  QCOMPARE(got.layers, want.layers);
  QCOMPARE(got.worst_steps, want.worst_steps);
  QCOMPARE(got.cell_roles, want.cell_roles);
  QCOMPARE(got.fractions, want.fractions);
  QCOMPARE(steps_of(got.skipped), steps_of(want.skipped));
  QCOMPARE(messages_of(got.overflow_events), messages_of(want.overflow_events));
}

}  // namespace

class live_refresh_test : public QObject {
  Q_OBJECT

 private slots:
  // The merge rule by hand: rows of the last held step are held once only,
  // also when the refresh read from an older step (asked before the last one was applied).
  void append_tail_keeps_each_row_once() {
    std::vector<row> held{{1, 0}, {2, 0}, {2, 1}};
    append_tail(held, std::vector<row>{{2, 0}, {2, 1}, {2, 2}, {3, 0}});
    QCOMPARE(rows_of(held), (std::vector<std::pair<std::int64_t, int>>{{1, 0}, {2, 0}, {2, 1}, {2, 2}, {3, 0}}));
    append_tail(held, std::vector<row>{{2, 0}, {2, 1}, {2, 2}, {3, 0}, {3, 1}});  // read from step 2
    QCOMPARE(rows_of(held),
             (std::vector<std::pair<std::int64_t, int>>{{1, 0}, {2, 0}, {2, 1}, {2, 2}, {3, 0}, {3, 1}}));
    std::vector<row> none;
    append_tail(none, std::vector<row>{{4, 0}, {4, 1}});
    QCOMPARE(rows_of(none), (std::vector<std::pair<std::int64_t, int>>{{4, 0}, {4, 1}}));
    QCOMPARE(tail_range(none).first, std::int64_t{4});
    QCOMPARE(tail_range(std::vector<row>{}).first, rundb::step_range{}.first);
  }

  void overview_refresh_reads_rows_in_proportion_to_the_appended_steps() {
    const interrupt_flag never{false};
    for (const std::int64_t n : {200, 2000}) {
      const auto file = dir_ / ("overview-" + std::to_string(n) + ".db");
      rundb::writer w(file);
      const auto id = w.begin_run({.name = "live", .config_yaml = "x: 1\n", .numlab_version = "0.1.0"});
      write_steps(w, id, 0, n - 1, -1);
      w.add_evaluation({id, 0, 10, 1.5, 0.5});
      w.flush();
      const run_ref run{QString::fromStdString(file.string()), id, "live"};
      const overview_series full = load_overview(run, overview_view::max_points, never);
      QVERIFY2(full.rows_read >= static_cast<std::uint64_t>(n), qPrintable(QString::number(full.rows_read)));
      // k = 7 steps more, step n + 3 skipped, one evaluation at n + 5.
      write_steps(w, id, n, n + 6, n + 3);
      w.add_evaluation({id, 1, n + 5, 1.25, 0.75});
      w.flush();
      const overview_series live = refresh_overview(full, overview_view::max_points, never);
      // By hand: the last held step again and the 7 new ones (8); skipped
      // steps from the last held step n - 1 on: n + 3 (1); evaluations from
      // the last held one (step 10) on: 10 and n + 5 (2).
      QCOMPARE(live.rows_read, std::uint64_t{8 + 1 + 2});
      const overview_series again = load_overview(run, overview_view::max_points, never);
      QCOMPARE(steps_of(live.steps), steps_of(again.steps));
      QCOMPARE(steps_of(live.skipped), (std::vector<std::int64_t>{5, n + 3}));
      QCOMPARE(steps_of(live.evaluations), (std::vector<std::int64_t>{10, n + 5}));
      QCOMPARE(live.total_steps, n + 7);
      QCOMPARE(live.steps.back().loss, std::optional<double>(static_cast<double>(n + 6)));
    }
  }

  // A run past max_points: its buckets are kept and merged pairwise as the width doubles.
  void overview_past_max_points_merges_its_buckets_pairwise() {
    const auto file = dir_ / "long.db";
    rundb::writer w(file);
    const auto id = w.begin_run({.name = "long", .config_yaml = "x: 1\n", .numlab_version = "0.1.0"});
    write_steps(w, id, 0, 99, -1);
    const run_ref run{QString::fromStdString(file.string()), id, "long"};
    const interrupt_flag never{false};
    const overview_series full = load_overview(run, 100, never);
    QCOMPARE(full.steps.size(), std::size_t{100});
    QCOMPARE(full.width, std::int64_t{1});
    write_steps(w, id, 100, 109, -1);
    const overview_series live = refresh_overview(full, 100, never);
    // By hand: steps 99..109 (11 rows), no skipped step from 99 on, no
    // evaluation held or written (0). 110 steps in at most 100 points:
    // floor(109 / 2) = 54 < 100, so buckets of 2 steps, 55 of them.
    QCOMPARE(live.rows_read, std::uint64_t{11});
    QCOMPARE(live.width, std::int64_t{2});
    QCOMPARE(live.steps.size(), std::size_t{55});
    QCOMPARE(live.total_steps, std::int64_t{110});
    expect_same_points(live, load_overview(run, 100, never));
    QCOMPARE(live.steps.back().loss, std::optional<double>(108.5));  // the mean of 108 and 109
  }

  // Issue 18 / session 12: a 10,000-step run (past the Overview's 4000
  // points) refreshes in proportion to the steps appended, not the run.
  void overview_of_a_long_run_refreshes_in_proportion_to_the_appended_steps() {
    constexpr std::int64_t n = 10000;
    const auto file = dir_ / "overview-long.db";
    rundb::writer w(file);
    const auto id = w.begin_run({.name = "long", .config_yaml = "x: 1\n", .numlab_version = "0.1.0"});
    write_steps(w, id, 0, n - 1, -1);
    w.add_evaluation({id, 0, 10, 1.5, 0.5});
    w.flush();
    const run_ref run{QString::fromStdString(file.string()), id, "long"};
    const interrupt_flag never{false};
    const overview_series full = load_overview(run, overview_view::max_points, never);
    // floor(9999 / 2) = 4999 >= 4000 > floor(9999 / 4) = 2499: buckets of 4 steps.
    QCOMPARE(full.width, std::int64_t{4});
    QCOMPARE(full.steps.size(), std::size_t{2500});
    QVERIFY(full.rows_read >= static_cast<std::uint64_t>(n));
    write_steps(w, id, n, n + 6, n + 3);  // k = 7, step n + 3 skipped
    w.add_evaluation({id, 1, n + 5, 1.25, 0.75});
    w.flush();
    const overview_series live = refresh_overview(full, overview_view::max_points, never);
    // By hand: the last bucket, steps 9996..9999, again (4) and the 7 new
    // steps; the skipped step n + 3 (1); evaluations from step 10 on (2).
    QCOMPARE(live.rows_read, std::uint64_t{4 + 7 + 1 + 2});
    expect_same_points(live, load_overview(run, overview_view::max_points, never));
    write_steps(w, id, n + 7, n + 76, -1);  // k = 70 more
    const overview_series later = refresh_overview(live, overview_view::max_points, never);
    // By hand: the last bucket, steps 10004..10006 (3), and the 70 new
    // steps; no skipped step; the evaluation at n + 5 again (1).
    QCOMPARE(later.rows_read, std::uint64_t{3 + 70 + 1});
    expect_same_points(later, load_overview(run, overview_view::max_points, never));
    QCOMPARE(later.total_steps, n + 77);
  }

  void events_view_live_refresh_reads_only_new_events() {
    for (const std::int64_t n : {200, 2000}) {
      const auto file = dir_ / ("events-" + std::to_string(n) + ".db");
      rundb::writer w(file);
      const auto id = w.begin_run({.name = "live", .config_yaml = "x: 1\n", .numlab_version = "0.1.0"});
      write_steps(w, id, 0, n - 1, -1);
      events_view view;
      QSignalSpy loaded(&view, &events_view::loaded);
      view.set_run({QString::fromStdString(file.string()), id, "live"});
      QVERIFY(loaded.wait(10000));
      QVERIFY(view.data().rows_read >= static_cast<std::uint64_t>(n / 4));
      write_steps(w, id, n, n + 6, n + 3);
      view.reload(reload_cause::live);
      QVERIFY(loaded.wait(10000));
      // By hand: the events from the last held one (step n - 4) on: that one,
      // n and n + 4 every 4th step, and the second event at n + 4: 4 rows.
      QCOMPARE(view.data().rows_read, std::uint64_t{4});
      const auto all = rundb::reader(file).events(id);
      QCOMPARE(messages_of(view.data().events), messages_of(all));
      QCOMPARE(view.data().events.back().message, std::string("second"));
    }
  }

  void map_refresh_reads_rows_in_proportion_to_the_appended_steps() {
    const interrupt_flag never{false};
    const auto write = [](rundb::writer& w, rundb::run_id id, std::int64_t first, std::int64_t last) {
      for (std::int64_t s = first; s <= last; ++s) {
        w.add_step({.run = id, .step = s, .loss = 1.0});
        for (const char* layer : {"a", "b"}) {
          w.add_tensor_stats({.run = id, .step = s, .layer = layer, .op = "dense", .role = "grad_weight",
                              .format = "binary16", .count = 10, .overflows = static_cast<std::uint64_t>(s % 3),
                              .hist = {-24, std::vector<std::uint64_t>(42, 1)}});
        }
      }
      w.flush();
    };
    for (const std::int64_t n : {50, 500}) {
      const auto file = dir_ / ("map-" + std::to_string(n) + ".db");
      rundb::writer w(file);
      const auto id = w.begin_run({.name = "live", .config_yaml = "x: 1\n", .numlab_version = "0.1.0"});
      write(w, id, 0, n - 1);
      const run_ref run{QString::fromStdString(file.string()), id, "live"};
      const map_grid full = load_map(run, "", map_metric::overflow, map_view::max_columns, never);
      QCOMPARE(full.steps.size(), static_cast<std::size_t>(n));
      write(w, id, n, n + 4);  // k = 5 steps more
      w.add_event({id, n + 2, rundb::event_kind::overflow, "a", "1 inf in grad_weight"});
      w.flush();
      const map_grid live = refresh_map(full, run, map_metric::overflow, map_view::max_columns, never);
      // By hand: the role's first step, last step and distinct-step count in
      // the range (3), the (step, layer) sums of the last held step and the
      // 5 new ones for 2 layers (12), the run's one role (1), no skipped
      // step, the one overflow event (1).
      QCOMPARE(live.rows_read, std::uint64_t{3 + 12 + 1 + 1});
      QCOMPARE(live.overflow_events.size(), std::size_t{1});
      expect_same_grid(live, load_map(run, "", map_metric::overflow, map_view::max_columns, never));
      QCOMPARE(live.at(1, static_cast<std::size_t>(n + 4)), 0.1 * static_cast<double>((n + 4) % 3));
    }
    // Issue 18 / session 12: 10,000 steps, past the map's 2000 columns.
    constexpr std::int64_t n = 10000;
    const auto file = dir_ / "map-long.db";
    rundb::writer w(file);
    const auto id = w.begin_run({.name = "long", .config_yaml = "x: 1\n", .numlab_version = "0.1.0"});
    write(w, id, 0, n - 1);
    const run_ref run{QString::fromStdString(file.string()), id, "long"};
    const map_grid full = load_map(run, "", map_metric::overflow, map_view::max_columns, never);
    // floor(9999 / 4) = 2499 >= 2000 > floor(9999 / 8) = 1249: columns of 8 steps.
    QCOMPARE(full.column_steps, std::int64_t{8});
    QCOMPARE(full.steps.size(), std::size_t{1250});
    write(w, id, n, n + 4);  // k = 5
    const map_grid live = refresh_map(full, run, map_metric::overflow, map_view::max_columns, never);
    // By hand: the range's extent (3); the sums of steps 9992..10004, the
    // last column again and the 5 new steps, for 2 layers (26); 1 role.
    QCOMPARE(live.rows_read, std::uint64_t{3 + 26 + 1});
    expect_same_grid(live, load_map(run, "", map_metric::overflow, map_view::max_columns, never));
    // A narrower map (100 columns) of 500 steps has columns of 8 steps
    // (floor(499 / 8) = 62 < 100 <= 124); 305 steps more reach 804 and
    // columns of 16 (floor(804 / 8) = 100): the columns merge pairwise.
    const auto narrow_file = dir_ / "map-narrow.db";
    rundb::writer nw(narrow_file);
    const auto narrow_id = nw.begin_run({.name = "narrow", .config_yaml = "x: 1\n", .numlab_version = "0.1.0"});
    write(nw, narrow_id, 0, 499);
    const run_ref narrow{QString::fromStdString(narrow_file.string()), narrow_id, "narrow"};
    const map_grid before = load_map(narrow, "", map_metric::overflow, 100, never);
    QCOMPARE(before.column_steps, std::int64_t{8});
    write(nw, narrow_id, 500, 804);
    const map_grid after = refresh_map(before, narrow, map_metric::overflow, 100, never);
    QCOMPARE(after.column_steps, std::int64_t{16});
    // By hand: the extent (3); steps 496..804 for 2 layers (618); 1 role.
    QCOMPARE(after.rows_read, std::uint64_t{3 + 618 + 1});
    expect_same_grid(after, load_map(narrow, "", map_metric::overflow, 100, never));
  }

 private:
  rundb_test::scratch_dir dir_{"gui-live"};
};

QTEST_MAIN(live_refresh_test)
#include "live_refresh_test.moc"
