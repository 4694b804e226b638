// The Overview's curve query on a long run: rundb::reader::steps merging
// 100,000 steps into at most 4000 points (one ordered scan, merged in C++),
// side by side with the SQL it replaced (GROUP BY over an expression, which
// SQLite sorts in a temporary B-tree of every row) on the same file.
//
// The file: NUMLAB_BENCH_RUNDB names a run database (its first run is read),
// e.g. the issue #18 synthetic run (`rundb-synth big.db --steps 100000
// --layers 20 --stats-every 1`), whose step rows lie scattered through 3.7 GB
// of statistics; without it a run of 100,000 steps alone is written to a
// temporary file first.
#include <benchmark/benchmark.h>
#include <sqlite3.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include <unistd.h>

#include "rundb/reader.hpp"
#include "rundb/writer.hpp"

namespace {

constexpr std::size_t max_points = 4000;  // the Overview's numlab_gui::overview_view::max_points
constexpr std::int64_t written_steps = 100000;

struct bench_file {
  std::filesystem::path path;
  rundb::run_id run = 0;
  bool temporary = false;

  bench_file() {
    if (const char* given = std::getenv("NUMLAB_BENCH_RUNDB")) {
      path = given;
      run = rundb::reader(path).runs().at(0).id;
      return;
    }
    path = std::filesystem::temp_directory_path() / ("rundb_steps_bench_" + std::to_string(::getpid()) + ".db");
    temporary = true;
    rundb::writer w(path);
    run = w.begin_run({.name = "long", .config_yaml = "model: synthetic\n", .numlab_version = "bench"});
    for (std::int64_t s = 0; s < written_steps; ++s) {
      rundb::step_record step{.run = run, .step = s, .epoch = s / 1000, .loss = 2.0 / (1.0 + 1e-3 * static_cast<double>(s)),
                              .loss_scale = std::ldexp(1.0, 16 - static_cast<int>(s % 2000) / 200),
                              .skipped = s % 2000 == 1999, .lr = 0.1, .grad_norm = 1.0 + std::sin(static_cast<double>(s)),
                              .wall_time = 0.01 * static_cast<double>(s)};
      if (step.skipped) step.skip_reason = "inf in grad_weight of layer3";
      w.add_step(step);
    }
    w.finish_run(run, rundb::run_status::finished);
  }
  ~bench_file() {
    if (temporary) {
      std::error_code ignored;
      for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix, ignored);
    }
  }
};

const bench_file& file() {
  static const bench_file f;
  return f;
}

void BM_reader_steps_merged(benchmark::State& state) {
  const auto& f = file();
  for (auto _ : state) {
    rundb::reader r(f.path);  // as the viewer does: a reader per query
    const auto steps = r.steps(f.run, {}, max_points);
    benchmark::DoNotOptimize(steps.data());
    state.counters["points"] = static_cast<double>(steps.size());
  }
}
BENCHMARK(BM_reader_steps_merged)->Unit(benchmark::kMillisecond);

// The reference: the query reader::steps ran before (same extent query first).
void BM_sql_group_by_reference(benchmark::State& state) {
  const auto& f = file();
  for (auto _ : state) {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(f.path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
      sqlite3_close(db);
      throw std::runtime_error("cannot open " + f.path.string());
    }
    sqlite3_stmt* extent = nullptr;
    sqlite3_prepare_v2(db, "SELECT count(*), min(step), max(step) FROM steps WHERE run_id = ?1", -1, &extent, nullptr);
    sqlite3_bind_int64(extent, 1, f.run);
    sqlite3_step(extent);
    const std::int64_t first = sqlite3_column_int64(extent, 1);
    const std::int64_t span = sqlite3_column_int64(extent, 2) - first;
    sqlite3_finalize(extent);
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(db,
                       "SELECT run_id, min(step), min(epoch), avg(loss), min(loss_scale), max(skipped), "
                       "max(skip_reason), avg(lr), avg(grad_norm), max(wall_time) FROM steps "
                       "WHERE run_id = ?1 GROUP BY (step - ?2) / ?3 ORDER BY 2",
                       -1, &s, nullptr);
    sqlite3_bind_int64(s, 1, f.run);
    sqlite3_bind_int64(s, 2, first);
    sqlite3_bind_int64(s, 3, span / static_cast<std::int64_t>(max_points) + 1);
    std::size_t rows = 0;
    double sum = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
      ++rows;
      sum += sqlite3_column_double(s, 3);
    }
    sqlite3_finalize(s);
    sqlite3_close(db);
    benchmark::DoNotOptimize(sum);
    state.counters["points"] = static_cast<double>(rows);
  }
}
BENCHMARK(BM_sql_group_by_reference)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
