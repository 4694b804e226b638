// Reading what the GUI's Compare tab needs of every run of a sweep
// (rundb::reader::run_outcomes: one statement per table), side by side with
// the reference, the per-run queries the tab made before session 8: per run,
// steps decimated to 400 points, last step, evaluations, step count, skipped
// steps and events, each a statement of its own. Both read the same fields.
//
// The file is named by NUMLAB_SWEEP_DB, written beforehand by rundb-synth
// (docs/SWEEPS.md, "GUI comparison on 1000 runs"):
//   rundb-synth sweep.db --runs 1000 --steps 1000 --layers 2 --stats-every 500
//     --coordinate precision=fp16-mixed,bf16,fp8,fp32,tf32 --coordinate rounding.update=ne,sr
//     --coordinate loss_scaling=none,static,dynamic,backoff --coordinate seed=1,...,25
//   (one command)
//   NUMLAB_SWEEP_DB=sweep.db comparison_bench
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "rundb/compare.hpp"
#include "rundb/reader.hpp"

namespace {

constexpr std::size_t max_points = 400;  // the Compare tab's points per run

std::optional<std::string> sweep_file() {
  const char* file = std::getenv("NUMLAB_SWEEP_DB");
  if (file == nullptr || *file == '\0') return std::nullopt;
  return std::string(file);
}

// The reference: what the Compare tab read, one run at a time.
std::size_t read_run_by_run(rundb::reader& db) {
  std::size_t points = 0;
  const auto coordinates = db.all_coordinates();
  for (const auto& info : db.runs()) {
    auto steps = db.steps(info.id, {}, max_points);
    std::erase_if(steps, [](const rundb::step_record& s) { return !s.loss; });
    points += steps.size();
    const auto last = db.last_step(info.id);
    const auto evaluations = db.evaluations(info.id);
    const auto count = db.step_count(info.id);
    const auto skipped = db.skipped_steps(info.id);
    const auto events = db.events(info.id);
    benchmark::DoNotOptimize(last);
    benchmark::DoNotOptimize(evaluations.data());
    benchmark::DoNotOptimize(count);
    benchmark::DoNotOptimize(skipped.data());
    benchmark::DoNotOptimize(events.data());
  }
  benchmark::DoNotOptimize(coordinates);
  return points;
}

std::size_t read_outcomes(rundb::reader& db) {
  std::size_t points = 0;
  for (const auto& outcome : db.run_outcomes(max_points)) points += outcome.loss_curve.size();
  return points;
}

// The keys `numlab inspect --compare` groups by in this measurement.
const std::vector<std::string>& compared_keys() {
  static const std::vector<std::string> keys{"precision", "rounding.update"};
  return keys;
}

// The reference: inspect --compare before session 9, three statements per finished run.
std::size_t compare_run_by_run(rundb::reader& db) {
  const auto coordinates = db.all_coordinates();
  std::vector<rundb::run_outcome> outcomes;
  for (auto& info : db.runs()) {
    rundb::run_outcome o;
    if (const auto c = coordinates.find(info.id); c != coordinates.end()) o.coordinates = c->second;
    if (info.status == rundb::run_status::finished) {
      const auto evaluations = db.evaluations(info.id);
      if (!evaluations.empty()) o.final_accuracy = evaluations.back().accuracy;
      for (const auto& e : db.events(info.id)) o.overflow_events += e.kind == rundb::event_kind::overflow;
      o.skipped_steps = static_cast<std::int64_t>(db.skipped_steps(info.id).size());
    }
    o.run = std::move(info);
    outcomes.push_back(std::move(o));
  }
  return rundb::group_outcomes(outcomes, compared_keys()).size();
}

std::size_t compare_outcomes(rundb::reader& db) { return rundb::compare_runs(db, compared_keys()).size(); }

// What a first session-9 version did: run_outcomes with a one-point curve,
// which streams every step through C++ (slower than the reference).
std::size_t compare_outcomes_with_curves(rundb::reader& db) {
  return rundb::group_outcomes(db.run_outcomes(1), compared_keys()).size();
}

template <std::size_t (*read)(rundb::reader&)>
void compare_tab_read(benchmark::State& state) {
  const auto file = sweep_file();
  if (!file) {
    state.SkipWithError("set NUMLAB_SWEEP_DB to a sweep database written by rundb-synth (see the header)");
    return;
  }
  std::size_t points = 0, runs = 0;
  for (auto _ : state) {
    rundb::reader db(*file);  // opened per read, as the tab's worker does
    points = read(db);
    runs = db.runs().size();
  }
  state.counters["runs"] = static_cast<double>(runs);
  state.counters["loss_points"] = static_cast<double>(points);
}

BENCHMARK(compare_tab_read<read_run_by_run>)->Name("CompareTabRead/run_by_run_reference")->Unit(benchmark::kMillisecond);
BENCHMARK(compare_tab_read<read_outcomes>)->Name("CompareTabRead/run_outcomes")->Unit(benchmark::kMillisecond);

template <std::size_t (*compare)(rundb::reader&)>
void inspect_compare(benchmark::State& state) {
  const auto file = sweep_file();
  if (!file) {
    state.SkipWithError("set NUMLAB_SWEEP_DB to a sweep database written by rundb-synth (see the header)");
    return;
  }
  std::size_t groups = 0;
  for (auto _ : state) {
    rundb::reader db(*file);  // opened per command, as numlab inspect does
    groups = compare(db);
  }
  state.counters["groups"] = static_cast<double>(groups);
}

BENCHMARK(inspect_compare<compare_run_by_run>)->Name("InspectCompare/run_by_run_reference")->Unit(benchmark::kMillisecond);
BENCHMARK(inspect_compare<compare_outcomes_with_curves>)->Name("InspectCompare/run_outcomes_with_curves")->Unit(benchmark::kMillisecond);
BENCHMARK(inspect_compare<compare_outcomes>)->Name("InspectCompare/run_outcomes_without_curves")->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
