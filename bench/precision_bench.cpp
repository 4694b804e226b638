// Training throughput under precision policies, side by side with numlab's
// own fp32 in the same run: forward, loss, backward and Adam update on
// synthetic batches of the tutorial conv model (batch 32, 28x28x1) and
// ResNet-8 (batch 128, 32x32x3), one worker thread. Policies: fp32 (no
// hook), fp16-mixed with fp32 partials (loss scale 256), fp16-mixed with
// sequential fp16 partials, pure bf16. The last benchmarks time the GEMM
// kernels alone (sgemm vs low-format partials, fast and portable paths).
#include <benchmark/benchmark.h>
#include <libnum/codec.hpp>
#include <libnum/convert.hpp>

#include <memory>
#include <random>

#include "lab/loss.hpp"
#include "lab/loss_scaler.hpp"
#include "lab/low_precision_gemm.hpp"
#include "lab/precision_hook.hpp"
#include "synthetic_training.hpp"

namespace {

lab::precision_policy policy_named(const std::string& name) {
  lab::precision_config c;
  if (name == "fp16-half-partials") {
    c.preset = "fp16-mixed";
    lab::set_precision_value(c, "partials", "low", "bench");
  } else {
    c.preset = name;
  }
  if (c.preset == "fp16-mixed") {
    lab::set_precision_value(c, "loss_scaling", "static", "bench");
    lab::set_precision_value(c, "loss_scale", "256", "bench");
  }
  return c.resolve();
}

void train_steps(benchmark::State& state, const lab::model_spec& spec, std::size_t batch_size,
                 const std::string& policy) {
  numlab_bench::synthetic_training t(spec, batch_size);
  std::unique_ptr<lab::precision_hook> hook;
  lab::op_context ctx;
  lab::precision_policy p = policy_named(policy);
  if (!p.is_fp32()) {
    hook = std::make_unique<lab::precision_hook>(p, 1);
    hook->store_parameters(t.params);
    ctx = hook->context();
  }
  lab::loss_scaler scaler(p.scaling);
  std::uint64_t step = 0;
  numlab_bench::steady_faults faults;
  for (auto _ : state) {
    faults.step();
    if (hook) hook->begin_step(step++);
    t.fill(step);
    t.net->forward(ctx, t.b.images, t.logits);
    const float loss =
        lab::softmax_cross_entropy(ctx, t.logits, t.b.labels, 0.0f, static_cast<float>(scaler.scale()), t.grad);
    benchmark::DoNotOptimize(loss);
    t.net->backward(ctx, t.b.images, t.logits, t.grad, nullptr);
    scaler.update(scaler.unscale(t.params));
    t.opt->step(ctx, 0.001f);
    lab::zero_gradients(t.params);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * batch_size));
  state.counters["images/s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * batch_size), benchmark::Counter::kIsRate);
  state.counters["faults/step"] = faults.per_step();
}

void BM_TutorialConv(benchmark::State& state, const char* policy) {
  train_steps(state, numlab_bench::tutorial_conv(), 32, policy);
}
void BM_ResNet8(benchmark::State& state, const char* policy) {
  train_steps(state, numlab_bench::resnet8(), 128, policy);
}

BENCHMARK_CAPTURE(BM_TutorialConv, fp32, "fp32")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_TutorialConv, fp16_mixed, "fp16-mixed")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_TutorialConv, bf16_pure, "bf16")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_TutorialConv, fp16_half_partials, "fp16-half-partials")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(5);
BENCHMARK_CAPTURE(BM_ResNet8, fp32, "fp32")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_ResNet8, fp16_mixed, "fp16-mixed")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_ResNet8, bf16_pure, "bf16")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_ResNet8, fp16_half_partials, "fp16-half-partials")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(2);

// The conv2 forward GEMM of the tutorial model: 32 x 8192 x 288.
void gemm_case(benchmark::State& state, int kind) {
  const std::size_t m = 32, n = 8192, k = 288;
  std::mt19937 gen(1);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> a(m * k), b(k * n), c(m * n);
  lab::low_accumulation acc;
  auto fp16 = [](float x) { return num::to_float(num::binary16, num::from_float(num::binary16, x, {}).bits); };
  for (auto& x : a) x = fp16(d(gen));
  for (auto& x : b) x = fp16(d(gen));
  const lab::gemm_args g{false, false, m, n, k, a.data(), k, b.data(), n, 0.0f, c.data(), n};
  for (auto _ : state) {
    if (kind == 0) lab::sgemm(g);
    if (kind == 1) lab::gemm_low_accumulation(g, acc);
    if (kind == 2) lab::gemm_low_accumulation_portable(g, acc);
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["MAC/s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * m * n * k), benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(gemm_case, sgemm_fp32, 0)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(gemm_case, fp16_partials_avx512, 1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(gemm_case, fp16_partials_portable, 2)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);

}  // namespace

BENCHMARK_MAIN();
