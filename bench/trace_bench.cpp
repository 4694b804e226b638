// Cost of tracing a run into a run database: training throughput of the
// tutorial conv model (fp16-mixed, static loss scale 256, as
// configs/tutorial_conv_fp16_mixed.yml; 28x28x1 synthetic data, batch 32,
// 20 optimizer steps and one small evaluation per iteration, one worker
// thread) untraced, tracing every op every 10 steps, and every op every step
// (histograms on). The argument is trace.every; 0 runs untraced. Trainer
// construction and database set-up are outside the timed region; the final
// commit (finish_run waits for it) is inside. CPU time is the whole
// process's (the writer thread included), the fair measure on a shared machine.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <memory>

#include "lab/run_recorder.hpp"
#include "lab/trainer.hpp"

namespace {

constexpr std::size_t batch_size = 32, steps = 20;

lab::train_config bench_config() {
  lab::train_config c;
  c.model = "tutorial_conv";
  c.dataset = "synthetic";
  c.train_limit = batch_size * steps;
  c.test_limit = 64;
  c.batch_size = batch_size;
  c.epochs = 1;
  c.eps = 1e-4f;
  c.threads = 1;
  lab::set_config_value(c, "precision", "fp16-mixed", "bench");
  lab::set_config_value(c, "loss_scaling", "static", "bench");
  lab::set_config_value(c, "loss_scale", "256", "bench");
  return c;
}

void remove_database(const std::filesystem::path& file) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(file.string() + suffix);
}

void BM_TutorialConvTraining(benchmark::State& state) {
  const auto every = static_cast<std::uint64_t>(state.range(0));
  lab::train_config config = bench_config();
  const lab::train_data data = lab::load_data(config);
  const auto file = std::filesystem::temp_directory_path() / "numlab_trace_bench.db";
  if (every > 0) {
    lab::set_config_value(config, "trace.db", file.string(), "bench");
    lab::set_config_value(config, "trace.every", std::to_string(every), "bench");
  }
  for (auto _ : state) {
    state.PauseTiming();
    std::unique_ptr<lab::run_recorder> recorder;
    if (every > 0) {
      remove_database(file);
      recorder = std::make_unique<lab::run_recorder>(config, "bench", "bench");
    }
    auto t = std::make_unique<lab::trainer>(config, data, recorder ? recorder->context() : lab::op_context{});
    if (recorder) recorder->attach(*t);
    state.ResumeTiming();
    const auto reports = t->run();
    benchmark::DoNotOptimize(reports.data());
    if (recorder) recorder->finish(rundb::run_status::finished);
    state.PauseTiming();
    t.reset();
    recorder.reset();
    state.ResumeTiming();
  }
  if (every > 0) remove_database(file);
  const auto images = static_cast<double>(state.iterations() * batch_size * steps);
  state.SetItemsProcessed(static_cast<std::int64_t>(images));
  state.counters["images/s"] = benchmark::Counter(images, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_TutorialConvTraining)->ArgName("trace_every")->Arg(0)->Arg(10)->Arg(1)->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
