// Tensor statistics over a 16M-element fp32 tensor, side by side with the
// references: one nearest-even fp32 -> fp16 (and -> bf16) rounding pass of the
// same tensor with libnum's array kernels (num::encode_array, automatic SIMD
// path, one thread), and the bare F16C instruction loop (vcvtps2ph, 8
// elements per instruction), which runs at memory speed. Target: statistics
// <= 1.5x the array-kernel rounding pass.
//
// The tensor is gradient-like: normal values scaled by 2^u, u uniform in
// [-24, 0], so magnitudes spread over ~30 binades, a share of them in fp16's
// subnormal range and below. One row takes data spread over all of fp32's
// normal binades instead, to show the bf16 target's fallback from the counting
// window to the pair table.
#include <libnum/cpu_features.hpp>
#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include "libnum/array.hpp"
#include "libnum/tensor_stats.hpp"

namespace {

constexpr std::size_t tensor_size = std::size_t{1} << 24;

const std::vector<float>& tensor() {
  static const std::vector<float> data = [] {
    std::mt19937 gen(2024);
    std::normal_distribution<float> normal;
    std::uniform_real_distribution<float> exponent(-24.0f, 0.0f);
    std::vector<float> v(tensor_size);
    for (float& x : v) x = normal(gen) * std::exp2(exponent(gen));
    return v;
  }();
  return data;
}

// Magnitudes log-uniform over fp32's normal range (2^-126 .. 2^127), random
// signs: more binades than the AVX-512 kernel's 64-slot counting window, for
// targets as wide as bf16. (fp32 subnormals are left out: the kernels
// classify those one by one, which would be a different measurement.)
const std::vector<float>& wide_tensor() {
  static const std::vector<float> data = [] {
    std::mt19937 gen(2025);
    std::uniform_real_distribution<float> exponent(-126.0f, 127.0f);
    std::vector<float> v(tensor_size);
    for (float& x : v) x = ((gen() & 1) != 0 ? -1.0f : 1.0f) * std::exp2(exponent(gen));
    return v;
  }();
  return data;
}

__attribute__((target("avx2,f16c"))) void round_to_fp16_f16c(const float* in, std::uint16_t* out, std::size_t n) {
  for (std::size_t i = 0; i < n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), h);
  }
}

void BM_reference_round_fp16_f16c(benchmark::State& state) {
  if (!num::host_cpu().f16c) {
    state.SkipWithError("no F16C");
    return;
  }
  const std::vector<float>& x = tensor();
  std::vector<std::uint16_t> out(x.size());
  for (auto _ : state) {
    round_to_fp16_f16c(x.data(), out.data(), x.size());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * x.size()));
}
BENCHMARK(BM_reference_round_fp16_f16c)->Unit(benchmark::kMillisecond);

void reference_encode_array(benchmark::State& state, num::format target) {
  const std::vector<float>& x = tensor();
  std::vector<std::uint16_t> out(x.size());
  const num::array_options options{.target = target};
  for (auto _ : state) {
    num::encode_array(x, out, options);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * x.size()));
}
BENCHMARK_CAPTURE(reference_encode_array, fp16_ne, num::binary16)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(reference_encode_array, bf16_ne, num::bfloat16_format)->Unit(benchmark::kMillisecond);

void stats_benchmark(benchmark::State& state, num::format target, num::rounding mode, num::stats_kernel kernel,
                     bool wide = false) {
  if (!num::stats_kernel_available(kernel)) {
    state.SkipWithError("kernel not supported by this CPU");
    return;
  }
  const std::vector<float>& x = wide ? wide_tensor() : tensor();
  const num::stats_plan plan(target, {.mode = mode});
  for (auto _ : state) {
    num::tensor_stats s = num::compute_stats(x, plan, {.kernel = kernel});
    benchmark::DoNotOptimize(s);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * x.size()));
}

BENCHMARK_CAPTURE(stats_benchmark, fp16_ne_avx512, num::binary16, num::rounding::nearest_even,
                  num::stats_kernel::avx512)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(stats_benchmark, fp16_ne_avx2, num::binary16, num::rounding::nearest_even,
                  num::stats_kernel::avx2)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(stats_benchmark, fp16_ne_portable, num::binary16, num::rounding::nearest_even,
                  num::stats_kernel::portable)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(stats_benchmark, bf16_ne_avx512, num::bfloat16_format, num::rounding::nearest_even,
                  num::stats_kernel::avx512)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(stats_benchmark, bf16_ne_avx512_wide_data, num::bfloat16_format, num::rounding::nearest_even,
                  num::stats_kernel::avx512, true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(stats_benchmark, fp16_ru_avx512, num::binary16, num::rounding::toward_positive,
                  num::stats_kernel::avx512)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(stats_benchmark, fp16_sr_portable, num::binary16, num::rounding::stochastic,
                  num::stats_kernel::portable)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
