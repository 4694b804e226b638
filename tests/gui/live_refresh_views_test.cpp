// Issue 18 (session 12): a live refresh of the Histograms, Swamping and
// Scales views reads only what the run appended: after k new steps the rows
// read (rundb::reader::rows_read, derived by hand below) are fixed by k and
// the held buckets' width, not by the run's length, and the refreshed data
// equal a full load of the file. A histogram shown at a fixed step is not
// read again.
#include <QTest>

#include <string>
#include <vector>

#include "../rundb/sample_database.hpp"
#include "live_queries.hpp"
#include "record_steps.hpp"
#include "run_queries.hpp"
#include "rundb/writer.hpp"

using namespace numlab_gui;
using gui_test::steps_of;

namespace {

const std::vector<std::string> layer_names{"a", "b"};

// Steps first..last: per layer a grad_weight record with a histogram and an
// update record with swamping counts and a |δ|/ulp(w) histogram; for layer
// "a" two scale_stats rows (forward, wgrad) of its weight.
void write_steps(rundb::writer& w, rundb::run_id run, std::int64_t first, std::int64_t last) {
  for (std::int64_t s = first; s <= last; ++s) {
    w.add_step({.run = run, .step = s, .loss = 1.0, .loss_scale = static_cast<double>(1 + s % 7)});
    for (const auto& layer : layer_names) {
      const auto spread = static_cast<std::uint64_t>(s % 5 + 1);
      w.add_tensor_stats({.run = run, .step = s, .layer = layer, .op = "dense", .role = "grad_weight",
                          .format = "binary16", .count = 42 * spread,
                          .hist = {-24, std::vector<std::uint64_t>(42, spread)}});
      w.add_tensor_stats({.run = run, .step = s, .layer = layer, .op = "dense", .role = "update",
                          .format = "binary16", .count = 12, .swamped = static_cast<std::uint64_t>(s % 4),
                          .partially_swamped = static_cast<std::uint64_t>(s % 3),
                          .hist = {-24, std::vector<std::uint64_t>(42, 1)},
                          .ulp_ratio = {-10, std::vector<std::uint64_t>(8, spread)}});
    }
    for (const char* op : {"forward", "wgrad"}) {
      w.add_scale_stats({.run = run, .step = s, .layer = "a", .op = op, .role = "weight", .scaled_format = "mxfp8",
                         .count = 64, .blocks = 2, .amax = static_cast<double>(s)});
    }
  }
  w.flush();
}

void expect_same_histograms(const histogram_data& got, const histogram_data& want) {
  QCOMPARE(got.steps, want.steps);
  QCOMPARE(got.selected, want.selected);
  QCOMPARE(got.history_first, want.history_first);
  QCOMPARE(steps_of(got.history), steps_of(want.history));
  QCOMPARE(got.loss_scales, want.loss_scales);
  QCOMPARE(got.waterfall_starts, want.waterfall_starts);
  QCOMPARE(got.waterfall_rows, want.waterfall_rows);
  QCOMPARE(got.waterfall, want.waterfall);
}

void expect_same_swamping(const swamping_data& got, const swamping_data& want) {
  QCOMPARE(got.layers.size(), want.layers.size());
  for (std::size_t l = 0; l < got.layers.size(); ++l) {
    QCOMPARE(got.layers[l].layer, want.layers[l].layer);
    QCOMPARE(got.layers[l].steps, want.layers[l].steps);
    QCOMPARE(got.layers[l].swamped, want.layers[l].swamped);
    QCOMPARE(got.layers[l].partially_swamped, want.layers[l].partially_swamped);
    QCOMPARE(got.layers[l].ulp_ratio_step, want.layers[l].ulp_ratio_step);
    QCOMPARE(got.layers[l].ulp_ratio.bins, want.layers[l].ulp_ratio.bins);
  }
  QCOMPARE(got.swamped.column_steps, want.swamped.column_steps);
  QCOMPARE(got.swamped.worst_steps, want.swamped.worst_steps);
  QCOMPARE(got.partially_swamped.worst_steps, want.partially_swamped.worst_steps);
}

}  // namespace

class live_refresh_views_test : public QObject {
  Q_OBJECT

 private slots:
  void histograms_of_a_short_run_read_only_the_new_records() {
    const auto [run, w] = open_run("hist-short.db", 50);
    const interrupt_flag never{false};
    const histogram_data newest = load_histogram(run, {}, "a", "grad_weight", -1, never);
    const histogram_data fixed = load_histogram(run, {}, "a", "grad_weight", 10, never);
    QCOMPARE(newest.history.size(), std::size_t{50});
    write_steps(*w, run.id, 50, 54);  // k = 5
    for (const auto* held : {&newest, &fixed}) {
      const histogram_data live = refresh_histogram(*held, run, never);
      // By hand: the records from the last held step 49 on (6), the loss
      // scales of steps 50..54 (5), no scale statistics of grad_weight (0).
      QCOMPARE(live.rows_read, std::uint64_t{6 + 5});
      expect_same_histograms(live, load_histogram(run, {}, "a", "grad_weight", held->requested_step, never));
    }
    QCOMPARE(refresh_histogram(fixed, run, never).selected, std::size_t{10});
  }

  void histograms_of_a_long_run_read_the_new_steps_and_the_last_bucket() {
    // 2100 steps: past max_waterfall_columns, so the waterfall comes from the summaries.
    const auto [run, w] = open_run("hist-long.db", 2100);
    const interrupt_flag never{false};
    const histogram_data newest = load_histogram(run, {}, "a", "grad_weight", -1, never);
    const histogram_data fixed = load_histogram(run, {}, "a", "grad_weight", 100, never);
    QCOMPARE(newest.buckets.size(), std::size_t{66});  // ceil(2100 / 32)
    write_steps(*w, run.id, 2100, 2104);  // k = 5
    const histogram_data live = refresh_histogram(newest, run, never);
    // By hand: the steps after 2099 (5); the summary buckets from the last
    // held one, bucket 65 (steps 2080..2104), on (1); the newest step's record
    // (1) and its loss scale (1); no scale statistics (0).
    QCOMPARE(live.rows_read, std::uint64_t{5 + 1 + 1 + 1});
    expect_same_histograms(live, load_histogram(run, {}, "a", "grad_weight", -1, never));
    // At a fixed step the shown record stays: the new steps (5) and the last bucket (1).
    const histogram_data still = refresh_histogram(fixed, run, never);
    QCOMPARE(still.rows_read, std::uint64_t{5 + 1});
    expect_same_histograms(still, load_histogram(run, {}, "a", "grad_weight", 100, never));
    QCOMPARE(still.selected_stats()->step, std::int64_t{100});
  }

  void swamping_reads_only_the_new_steps() {
    const interrupt_flag never{false};
    {
      const auto [run, w] = open_run("swamping-short.db", 50);
      const swamping_data held = load_swamping(run, 2000, never);
      QCOMPARE(held.layers.size(), std::size_t{2});
      write_steps(*w, run.id, 50, 54);  // k = 5
      const swamping_data live = refresh_swamping(held, run, 2000, never);
      // By hand: the update role's extent in the range (3); the (step,
      // layer) sums of steps 49..54 (12); each layer's newest |δ|/ulp(w) histogram (2).
      QCOMPARE(live.rows_read, std::uint64_t{3 + 12 + 2});
      expect_same_swamping(live, load_swamping(run, 2000, never));
    }
    // 500 steps in at most 100 points: columns of 8 (floor(499 / 8) = 62 <
    // 100 <= 124); 305 steps more reach 804, columns of 16: merged pairwise.
    const auto [run, w] = open_run("swamping-long.db", 500);
    const swamping_data held = load_swamping(run, 100, never);
    QCOMPARE(held.swamped.column_steps, std::int64_t{8});
    write_steps(*w, run.id, 500, 804);
    const swamping_data live = refresh_swamping(held, run, 100, never);
    QCOMPARE(live.swamped.column_steps, std::int64_t{16});
    // By hand: the extent (3); steps 496..804 for 2 layers (618); 2 histograms.
    QCOMPARE(live.rows_read, std::uint64_t{3 + 618 + 2});
    expect_same_swamping(live, load_swamping(run, 100, never));
  }

  void scales_read_only_the_new_steps() {
    const auto [run, w] = open_run("scales.db", 50);
    const interrupt_flag never{false};
    const scales_data held = load_scales(run, "a", "weight", -1, never);
    QCOMPARE(held.history.size(), std::size_t{100});
    write_steps(*w, run.id, 50, 54);  // k = 5
    const scales_data live = refresh_scales(held, run, never);
    // By hand: the rows of the last held step 49 (2: forward and wgrad) and of the 5 new steps (10).
    QCOMPARE(live.rows_read, std::uint64_t{2 + 10});
    const scales_data again = load_scales(run, "a", "weight", -1, never);
    QCOMPARE(steps_of(live.history), steps_of(again.history));
    QCOMPARE(live.ops, again.ops);
    QCOMPARE(live.history.back().amax, std::optional<double>(54.0));
  }

 private:
  // A run of steps 0..n-1 in a new file, and its writer, left open for more.
  std::pair<run_ref, std::shared_ptr<rundb::writer>> open_run(const std::string& name, std::int64_t n) {
    const auto file = dir_ / name;
    auto w = std::make_shared<rundb::writer>(file);
    const auto id = w->begin_run({.name = "live", .config_yaml = "x: 1\n", .numlab_version = "0.1.0"});
    write_steps(*w, id, 0, n - 1);
    return {run_ref{QString::fromStdString(file.string()), id, "live"}, w};
  }

  rundb_test::scratch_dir dir_{"gui-live-views"};
};

QTEST_MAIN(live_refresh_views_test)
#include "live_refresh_views_test.moc"
