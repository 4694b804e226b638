// The cost of locating the first NaN/inf (precision_hook) against the
// training step it is part of, in one run. BM_Step times forward, loss,
// backward and Adam under a policy, locator included, and counts the floats
// the hook handed on and how many of them it rounded. The BM_Round* cases
// round tensors of the step's sizes in place into fp16 (nearest-even), as
// the hook does: BM_Round alone, BM_RoundWatch with want_non_finite (the
// locator folded into the rounding pass, as the hook runs it now) and
// BM_RoundScan followed by num::any_non_finite (the separate pass it used
// to run). The locator's share of a step is (BM_RoundWatch - BM_Round) /
// BM_Step now, (BM_RoundScan - BM_Round) / BM_Step before; both bound it
// from above, since the replay rounds every tensor the hook saw.
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
  void update(const lab::site&, std::span<float>, const lab::weight_step&) override {}
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
  hook.reset_tally();
  for (auto _ : state)
    for (const auto n : step_once(t, hook, seen, step++)) floats += n;
  std::uint64_t rounded = 0;
  for (const auto n : hook.tally().elements) rounded += n;
  const auto steps = static_cast<double>(state.iterations());
  state.counters["floats/step"] = static_cast<double>(floats) / steps;
  state.counters["rounded/step"] = static_cast<double>(rounded) / steps;
}

// How the BM_Round* cases look for non-finite results.
enum class locating { none, folded, separate_scan };

void round_tensors(benchmark::State& state, const char* name, locating how) {
  numlab_bench::synthetic_training t(numlab_bench::tutorial_conv(), 32);
  size_recorder seen;
  lab::precision_hook hook(policy(name), 1, &seen);
  hook.store_parameters(t.params);
  std::vector<std::vector<float>> tensors;
  for (const auto n : step_once(t, hook, seen, 0)) {
    tensors.emplace_back(n);
    for (std::size_t i = 0; i < n; ++i) tensors.back()[i] = 0.5f + 1e-3f * static_cast<float>(i % 1000);
  }
  num::array_options o;
  o.want_non_finite = how == locating::folded;
  std::size_t found = 0;
  for (auto _ : state)
    for (auto& v : tensors) {
      const num::conversion_result r = num::round_array_in_place(v, o);
      found += r.non_finite ? 1 : 0;
      if (how == locating::separate_scan) found += num::any_non_finite(v) ? 1 : 0;
      benchmark::ClobberMemory();
    }
  benchmark::DoNotOptimize(found);
}

void BM_Round(benchmark::State& state, const char* name) { round_tensors(state, name, locating::none); }
void BM_RoundWatch(benchmark::State& state, const char* name) { round_tensors(state, name, locating::folded); }
void BM_RoundScan(benchmark::State& state, const char* name) { round_tensors(state, name, locating::separate_scan); }

}  // namespace

BENCHMARK_CAPTURE(BM_Step, fp16_mixed, "fp16-mixed")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Round, fp16_mixed, "fp16-mixed")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_RoundWatch, fp16_mixed, "fp16-mixed")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_RoundScan, fp16_mixed, "fp16-mixed")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Step, fp16_pure, "fp16")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_Round, fp16_pure, "fp16")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_RoundWatch, fp16_pure, "fp16")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_RoundScan, fp16_pure, "fp16")->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
