// The cost of locating the first NaN/inf (precision_hook's scan of every
// tensor it rounds) against the training step it is part of, in one run:
// BM_Step times forward, loss, backward and Adam under a policy (scan
// included) and counts the floats the hook saw; BM_WriteScan writes each of
// tensors of the same sizes (as the rounding does) and scans it while it is
// hot, as the hook does; BM_Write only writes them. The scan's share of a
// step is (BM_WriteScan - BM_Write) / BM_Step.
#include <benchmark/benchmark.h>
#include <libnum/array.hpp>

#include <algorithm>
#include <memory>
#include <vector>

#include "lab/loss.hpp"
#include "lab/precision_hook.hpp"
#include "synthetic_training.hpp"

namespace {

// Records the size of every tensor the precision hook hands on (after rounding).
struct size_recorder : lab::tensor_hook {
  std::vector<std::size_t> sizes;
  void produce(const lab::site&, lab::tensor_role, std::span<float> v, lab::unrounded_values) override {
    sizes.push_back(v.size());
  }
  std::span<const float> weight(const lab::site&, std::span<const float> m, lab::unrounded_values) override {
    sizes.push_back(m.size());
    return m;
  }
  std::span<const float> operand(const lab::site&, lab::tensor_role, std::span<const float> v,
                                 lab::unrounded_values) override {
    sizes.push_back(v.size());
    return v;
  }
  void update(const lab::site&, std::span<float>, std::span<const float>) override {}
  void observe_update(const lab::site&, std::span<const float>, std::span<const float>,
                      std::span<const float> after) override {
    sizes.push_back(after.size());
  }
};

lab::precision_policy policy(const char* name) {
  lab::precision_config c;
  c.preset = name;
  return c.resolve();
}

// One step; returns the sizes of the tensors the hook saw in it.
std::vector<std::size_t> step_once(numlab_bench::synthetic_training& t, lab::precision_hook& hook,
                                   size_recorder& seen, std::uint64_t step) {
  seen.sizes.clear();
  hook.begin_step(step);
  t.fill(step);
  const lab::op_context ctx = hook.context();
  t.net->forward(ctx, t.b.images, t.logits);
  benchmark::DoNotOptimize(lab::softmax_cross_entropy(ctx, t.logits, t.b.labels, 0.0f, 1.0f, t.grad));
  t.net->backward(ctx, t.b.images, t.logits, t.grad, nullptr);
  t.opt->step(ctx, 1e-4f);
  lab::zero_gradients(t.params);
  return seen.sizes;
}

void BM_Step(benchmark::State& state, const char* name) {
  numlab_bench::synthetic_training t(numlab_bench::tutorial_conv(), 32);
  size_recorder seen;
  lab::precision_hook hook(policy(name), 1, &seen);
  hook.store_parameters(t.params);
  std::uint64_t step = 0, floats = 0;
  for (auto _ : state)
    for (const auto n : step_once(t, hook, seen, step++)) floats += n;
  state.counters["floats/step"] = static_cast<double>(floats) / static_cast<double>(state.iterations());
}

void write_tensors(benchmark::State& state, const char* name, bool scan) {
  numlab_bench::synthetic_training t(numlab_bench::tutorial_conv(), 32);
  size_recorder seen;
  lab::precision_hook hook(policy(name), 1, &seen);
  hook.store_parameters(t.params);
  std::vector<std::vector<float>> tensors;
  for (const auto n : step_once(t, hook, seen, 0)) tensors.emplace_back(n, 0.5f);
  float value = 0.5f;
  for (auto _ : state)
    for (auto& v : tensors) {
      std::fill(v.begin(), v.end(), value += 0.25f);
      benchmark::ClobberMemory();
      if (scan) benchmark::DoNotOptimize(num::any_non_finite(v));
    }
}

void BM_WriteScan(benchmark::State& state, const char* name) { write_tensors(state, name, true); }
void BM_Write(benchmark::State& state, const char* name) { write_tensors(state, name, false); }

}  // namespace

BENCHMARK_CAPTURE(BM_Step, fp16_mixed, "fp16-mixed")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_WriteScan, fp16_mixed, "fp16-mixed")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Write, fp16_mixed, "fp16-mixed")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Step, fp16_pure, "fp16")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_WriteScan, fp16_pure, "fp16")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Write, fp16_pure, "fp16")->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
