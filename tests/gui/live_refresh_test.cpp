// Issue 18, defect 1: a live refresh reads only what the run appended. After
// k new steps the Overview, Map and Events refreshes read a number of rows fixed
// by k (counted by rundb::reader::rows_read, derived by hand below), the
// same for a run of 200 steps as for one of 2000, and end with exactly what
// a full read of the file gives.
#include <QSignalSpy>
#include <QTest>

#include <vector>

#include "../rundb/sample_database.hpp"
#include "events_view.hpp"
#include "live_queries.hpp"
#include "map_view.hpp"
#include "overview_view.hpp"
#include "run_queries.hpp"
#include "rundb/writer.hpp"

using namespace numlab_gui;

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

template <typename Records>
std::vector<std::int64_t> steps_of(const Records& records) {
  std::vector<std::int64_t> out;
  for (const auto& r : records) out.push_back(r.step);
  return out;
}

std::vector<std::string> messages_of(const std::vector<rundb::event_record>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) out.push_back(std::to_string(e.step) + " " + e.message);
  return out;
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

  void overview_past_max_points_reads_again() {
    const auto file = dir_ / "long.db";
    rundb::writer w(file);
    const auto id = w.begin_run({.name = "long", .config_yaml = "x: 1\n", .numlab_version = "0.1.0"});
    write_steps(w, id, 0, 99, -1);
    const run_ref run{QString::fromStdString(file.string()), id, "long"};
    const interrupt_flag never{false};
    const overview_series full = load_overview(run, 100, never);
    QCOMPARE(full.steps.size(), std::size_t{100});
    write_steps(w, id, 100, 109, -1);
    const overview_series live = refresh_overview(full, 100, never);
    // 110 steps in at most 100 points: merged into buckets of 2 steps, as a full read merges them.
    QCOMPARE(steps_of(live.steps), steps_of(load_overview(run, 100, never).steps));
    QCOMPARE(live.steps.size(), std::size_t{55});
    QCOMPARE(live.total_steps, std::int64_t{110});
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
      const map_grid live = refresh_map(full, run, map_metric::overflow, map_view::max_columns, never);
      // By hand: the role's first step, last step and distinct-step count in
      // the range (3), the (step, layer) sums of the last held step and the
      // 5 new ones for 2 layers (12), the run's one role (1), no skipped step.
      QCOMPARE(live.rows_read, std::uint64_t{3 + 12 + 1});
      const map_grid again = load_map(run, "", map_metric::overflow, map_view::max_columns, never);
      QCOMPARE(live.steps, again.steps);
      QCOMPARE(live.layers, again.layers);
      QCOMPARE(live.worst_steps, again.worst_steps);
      QCOMPARE(live.cell_roles, again.cell_roles);
      QCOMPARE(live.fractions, again.fractions);
      QCOMPARE(live.at(1, static_cast<std::size_t>(n + 4)), 0.1 * static_cast<double>((n + 4) % 3));
    }
  }

 private:
  rundb_test::scratch_dir dir_{"gui-live"};
};

QTEST_MAIN(live_refresh_test)
#include "live_refresh_test.moc"
