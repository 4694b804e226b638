// What a live refresh of the Overview and Events views reads, side by side
// with the reference, the full read every refresh did before session 11
// (issue 18, defect 1): on a run of 3990 steps (every step plotted: the
// Overview's 4000-point limit) with an event every 4th step, 10 new steps
// (and their events) arrive. The refresh reads the rows from the last held
// step on; the reference reads the run again. Both run on the worker thread
// of the view; the counters say how many rows each read.
//   QT_QPA_PLATFORM=offscreen build/bench/gui_live_refresh_bench
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

#include "live_queries.hpp"
#include "map_view.hpp"
#include "overview_view.hpp"
#include "run_queries.hpp"
#include "rundb/writer.hpp"

namespace {

constexpr std::int64_t held_steps = 3990;
constexpr std::int64_t new_steps = 10;

struct live_run {
  std::filesystem::path file;
  numlab_gui::run_ref run;
  numlab_gui::overview_series held;  // what the view shows before the 10 new steps
  numlab_gui::event_list held_events;

  live_run() {
    file = std::filesystem::temp_directory_path() / ("gui_live_refresh_bench_" + std::to_string(getpid()) + ".db");
    std::filesystem::remove(file);
    rundb::writer w(file);
    const auto id = w.begin_run({.name = "live", .config_yaml = "model: tiny\n", .numlab_version = "0.1.0"});
    const auto write = [&](std::int64_t first, std::int64_t last) {
      for (std::int64_t s = first; s < last; ++s) {
        w.add_step({.run = id, .step = s, .loss = 1.0 / static_cast<double>(s + 1), .skipped = s % 500 == 7});
        if (s % 4 == 0) w.add_event({id, s, rundb::event_kind::overflow, "fc", "overflow at " + std::to_string(s)});
      }
      w.flush();
    };
    run = {QString::fromStdString(file.string()), id, "live"};
    const numlab_gui::interrupt_flag never{false};
    write(0, held_steps);
    held = numlab_gui::load_overview(run, numlab_gui::overview_view::max_points, never);
    held_events = numlab_gui::load_events(run, never);
    write(held_steps, held_steps + new_steps);
  }
  ~live_run() {
    std::error_code ignored;
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(file.string() + suffix, ignored);
  }
};

live_run& the_run() {
  static live_run run;
  return run;
}

const numlab_gui::interrupt_flag never{false};

// Runs `read` in each iteration and reports the rows the last one read.
template <typename Read>
void time_reads(benchmark::State& state, Read read) {
  std::uint64_t rows = 0;
  for (auto _ : state) {
    auto result = read();
    rows = result.rows_read;
    benchmark::DoNotOptimize(result);
  }
  state.counters["rows"] = static_cast<double>(rows);
}

void BM_overview_live_refresh(benchmark::State& state) {
  auto& r = the_run();
  time_reads(state, [&] { return numlab_gui::refresh_overview(r.held, numlab_gui::overview_view::max_points, never); });
}
BENCHMARK(BM_overview_live_refresh)->Unit(benchmark::kMicrosecond);

// The reference: the full read each live refresh did before.
void BM_overview_full_reload(benchmark::State& state) {
  auto& r = the_run();
  time_reads(state, [&] { return numlab_gui::load_overview(r.run, numlab_gui::overview_view::max_points, never); });
}
BENCHMARK(BM_overview_full_reload)->Unit(benchmark::kMicrosecond);

void BM_events_live_refresh(benchmark::State& state) {
  auto& r = the_run();
  time_reads(state, [&] {
    auto held = r.held_events;  // the view appends to what it holds
    auto fresh = numlab_gui::load_events(r.run, never, numlab_gui::tail_range(held.events));
    numlab_gui::append_tail(held.events, std::move(fresh.events));
    held.rows_read = fresh.rows_read;
    return held;
  });
}
BENCHMARK(BM_events_live_refresh)->Unit(benchmark::kMicrosecond);

// The reference: every event read again.
void BM_events_full_reload(benchmark::State& state) {
  auto& r = the_run();
  time_reads(state, [&] { return numlab_gui::load_events(r.run, never); });
}
BENCHMARK(BM_events_full_reload)->Unit(benchmark::kMicrosecond);

// Session 12: a run past the Overview's 4000 points and the map's 2000
// columns, 20,000 steps with grad_weight statistics of 4 layers at every
// step, 10 new steps. Before session 12 both refreshes fell back to the full
// read (the references below); now they read from their last bucket or
// column on (4 and 16 steps wide here) and keep the rest.
constexpr std::int64_t long_held_steps = 20000;
constexpr std::size_t map_columns = numlab_gui::map_view::max_columns;

struct long_live_run {
  std::filesystem::path file;
  numlab_gui::run_ref run;
  numlab_gui::overview_series held;
  numlab_gui::map_grid held_map;

  long_live_run() {
    file = std::filesystem::temp_directory_path() / ("gui_live_refresh_bench_long_" + std::to_string(getpid()) + ".db");
    std::filesystem::remove(file);
    rundb::writer w(file);
    const auto id = w.begin_run({.name = "long", .config_yaml = "model: tiny\n", .numlab_version = "0.1.0"});
    const auto write = [&](std::int64_t first, std::int64_t last) {
      for (std::int64_t s = first; s < last; ++s) {
        w.add_step({.run = id, .step = s, .loss = 1.0 / static_cast<double>(s + 1), .skipped = s % 500 == 7});
        for (const char* layer : {"conv1", "conv2", "fc1", "fc2"}) {
          w.add_tensor_stats({.run = id, .step = s, .layer = layer, .op = "dense", .role = "grad_weight",
                              .format = "binary16", .count = 1000, .overflows = static_cast<std::uint64_t>(s % 7)});
        }
      }
      w.flush();
    };
    run = {QString::fromStdString(file.string()), id, "long"};
    const numlab_gui::interrupt_flag never{false};
    write(0, long_held_steps);
    held = numlab_gui::load_overview(run, numlab_gui::overview_view::max_points, never);
    held_map = numlab_gui::load_map(run, "", numlab_gui::map_metric::overflow, map_columns, never);
    write(long_held_steps, long_held_steps + new_steps);
  }
  ~long_live_run() {
    std::error_code ignored;
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(file.string() + suffix, ignored);
  }
};

long_live_run& the_long_run() {
  static long_live_run run;
  return run;
}

void BM_long_overview_live_refresh(benchmark::State& state) {
  auto& r = the_long_run();
  time_reads(state, [&] { return numlab_gui::refresh_overview(r.held, numlab_gui::overview_view::max_points, never); });
}
BENCHMARK(BM_long_overview_live_refresh)->Unit(benchmark::kMicrosecond);

// The reference: what a refresh of a run past 4000 steps did before session 12.
void BM_long_overview_full_reload(benchmark::State& state) {
  auto& r = the_long_run();
  time_reads(state, [&] { return numlab_gui::load_overview(r.run, numlab_gui::overview_view::max_points, never); });
}
BENCHMARK(BM_long_overview_full_reload)->Unit(benchmark::kMicrosecond);

void BM_long_map_live_refresh(benchmark::State& state) {
  auto& r = the_long_run();
  time_reads(state, [&] { return numlab_gui::refresh_map(r.held_map, r.run, numlab_gui::map_metric::overflow, map_columns, never); });
}
BENCHMARK(BM_long_map_live_refresh)->Unit(benchmark::kMicrosecond);

// The reference: what a refresh of a map past 2000 columns did before session 12.
void BM_long_map_full_reload(benchmark::State& state) {
  auto& r = the_long_run();
  time_reads(state, [&] { return numlab_gui::load_map(r.run, "", numlab_gui::map_metric::overflow, map_columns, never); });
}
BENCHMARK(BM_long_map_full_reload)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
