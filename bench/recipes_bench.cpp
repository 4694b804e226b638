// Training throughput under the scaled-format recipes (issue 19), side by
// side with numlab's own fp32 in the same run: forward, loss, backward and
// Adam update on synthetic batches of the tutorial conv model (batch 32) and
// ResNet-8 (batch 128), one worker thread. Targets: mxfp8 >= 0.5x fp32
// images/s, nvfp4 >= 0.4x. The *_traced benchmarks add the run tracer with a
// scale sink that takes the statistics of every quantized GEMM operand every
// 10th step (target: <= 10% over the untraced recipe).
//
// BM_ConvGemm: one GEMM of the tutorial conv's second layer (32 output
// channels, 3x3x32 kernel, 28x28 image) through a recipe's hook, beside the
// same product in fp32 (sgemm alone): the forward (B, the im2col matrix,
// k-major), the kernel gradient (nvfp4: the Hadamard transform on both
// operands) and the input gradient (both operands k-major).

#include <benchmark/benchmark.h>
#include <cblas.h>

#include <libnum/hooks.hpp>

#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "lab/loss.hpp"
#include "lab/precision_hook.hpp"
#include "lab/run_tracer.hpp"
#include "lab/scale_trace.hpp"
#include "synthetic_training.hpp"

namespace {

// Keeps what a database sink would write: the observations of wanted steps.
class every_tenth_step : public lab::scale_sink {
 public:
  bool wants(std::string_view, lab::gemm_operand, std::uint64_t step) const override { return step % 10 == 0; }
  void on_scale(const lab::scale_observation& o) override {
    ++observations;
    benchmark::DoNotOptimize(o.stats.noise_energy);
  }
  std::size_t observations = 0;
};

void train_steps(benchmark::State& state, const lab::model_spec& spec, std::size_t batch_size,
                 const std::string& preset, bool traced) {
  numlab_bench::synthetic_training t(spec, batch_size);
  num::stats_hooks hooks;
  lab::run_tracer tracer(hooks);
  every_tenth_step sink;
  tracer.set_scale_sink(&sink);
  const lab::precision_policy p = lab::precision_preset(preset);
  std::unique_ptr<lab::precision_hook> hook;
  lab::op_context ctx;
  if (!p.is_fp32()) {
    hook = std::make_unique<lab::precision_hook>(p, 1, traced ? &tracer : nullptr);
    ctx = hook->context();
  }
  std::uint64_t step = 0;
  numlab_bench::steady_faults faults;
  for (auto _ : state) {
    faults.step();
    tracer.begin_step(step);
    if (hook) hook->begin_step(step);
    t.fill(step++);
    t.net->forward(ctx, t.b.images, t.logits);
    const float loss = lab::softmax_cross_entropy(ctx, t.logits, t.b.labels, 0.0f, 1.0f, t.grad);
    benchmark::DoNotOptimize(loss);
    t.net->backward(ctx, t.b.images, t.logits, t.grad, nullptr);
    if (hook) hook->end_step();
    t.opt->step(ctx, 0.001f);
    lab::zero_gradients(t.params);
  }
  state.counters["images/s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * batch_size), benchmark::Counter::kIsRate);
  state.counters["faults/step"] = faults.per_step();
  if (traced) state.counters["traced_operands"] = static_cast<double>(sink.observations);
}

void BM_TutorialConv(benchmark::State& state, const char* preset, bool traced) {
  train_steps(state, numlab_bench::tutorial_conv(), 32, preset, traced);
}
void BM_ResNet8(benchmark::State& state, const char* preset, bool traced) {
  train_steps(state, numlab_bench::resnet8(), 128, preset, traced);
}

// Which GEMM of the conv layer BM_ConvGemm repeats.
enum class conv_gemm_kind { forward, grad_weight, grad_input };

// Repeats one GEMM of the conv layer "c2"; part 0 each time, so the weight's
// kept quantization is found again, as in a step's later image chunks.
void BM_ConvGemm(benchmark::State& state, const char* preset, conv_gemm_kind kind) {
  constexpr std::size_t out_c = 32, crs = 288, cols = 784;
  openblas_set_num_threads(1);  // as synthetic_training does
  std::mt19937 gen(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> w(out_c * crs), col(crs * cols), dy(out_c * cols), c(crs * cols);
  for (auto* v : {&w, &col, &dy})
    for (auto& x : *v) x = normal(gen);
  const lab::precision_policy p = lab::precision_preset(preset);
  std::unique_ptr<lab::precision_hook> hook;
  lab::op_context ctx;
  if (!p.is_fp32()) {
    hook = std::make_unique<lab::precision_hook>(p, 1, nullptr);
    ctx = hook->context();
    hook->begin_step(0);
  }
  using lab::tensor_role;
  // conv2d's three GEMMs (conv2d.cpp) on one image.
  lab::gemm_args g;
  tensor_role role = tensor_role::activation;
  std::string_view tensor = "output";
  switch (kind) {
    case conv_gemm_kind::forward:  // Y[k, cols] = W[k, crs] col[crs, cols]
      g = {false, false, out_c, cols, crs, w.data(), crs, col.data(), cols, 0.0f, c.data(), cols,
           tensor_role::weight, tensor_role::activation, 0};
      break;
    case conv_gemm_kind::grad_weight:  // dW[k, crs] = dY[k, cols] col[crs, cols]ᵀ
      g = {false, true, out_c, crs, cols, dy.data(), cols, col.data(), cols, 0.0f, c.data(), crs,
           tensor_role::grad_input, tensor_role::activation, 0};
      role = tensor_role::grad_weight;
      tensor = "kernel";
      break;
    case conv_gemm_kind::grad_input:  // dcol[crs, cols] = W[k, crs]ᵀ dY[k, cols]
      g = {true, false, crs, cols, out_c, w.data(), crs, dy.data(), cols, 0.0f, c.data(), cols,
           tensor_role::weight, tensor_role::grad_input, 0};
      role = tensor_role::grad_input;
      tensor = "grad_input";
      break;
  }
  const lab::site where{"c2", "conv2d", lab::op_class::conv, tensor};
  for (auto _ : state) {
    ctx.gemm(where, role, g);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
}
#define CONV_GEMM_BENCH(kind, preset) \
  BENCHMARK_CAPTURE(BM_ConvGemm, kind##_##preset, #preset, conv_gemm_kind::kind)->Unit(benchmark::kMicrosecond)
CONV_GEMM_BENCH(forward, fp32);
CONV_GEMM_BENCH(forward, mxfp8);
CONV_GEMM_BENCH(forward, nvfp4);
CONV_GEMM_BENCH(grad_weight, fp32);
CONV_GEMM_BENCH(grad_weight, mxfp8);
CONV_GEMM_BENCH(grad_weight, nvfp4);
CONV_GEMM_BENCH(grad_input, fp32);
CONV_GEMM_BENCH(grad_input, mxfp8);
CONV_GEMM_BENCH(grad_input, nvfp4);

#define RECIPE_BENCH(model, name, preset, traced) \
  BENCHMARK_CAPTURE(model, name, preset, traced)->Unit(benchmark::kMillisecond)->UseRealTime()

// Throughput: each recipe beside fp32.
RECIPE_BENCH(BM_TutorialConv, fp32, "fp32", false)->MinTime(2.0);
RECIPE_BENCH(BM_TutorialConv, mxfp8, "mxfp8", false)->MinTime(2.0);
RECIPE_BENCH(BM_TutorialConv, nvfp4, "nvfp4", false)->MinTime(2.0);
RECIPE_BENCH(BM_TutorialConv, fp8_delayed, "fp8-delayed", false)->MinTime(2.0);
RECIPE_BENCH(BM_ResNet8, fp32, "fp32", false)->MinTime(2.0);
RECIPE_BENCH(BM_ResNet8, mxfp8, "mxfp8", false)->MinTime(2.0);
RECIPE_BENCH(BM_ResNet8, nvfp4, "nvfp4", false)->MinTime(2.0);
// Tracing every 10th step: 30 steps each, so exactly 3 are traced.
RECIPE_BENCH(BM_TutorialConv, mxfp8_30_steps, "mxfp8", false)->Iterations(30);
RECIPE_BENCH(BM_TutorialConv, mxfp8_30_steps_traced, "mxfp8", true)->Iterations(30);

}  // namespace

BENCHMARK_MAIN();
