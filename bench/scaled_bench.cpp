// Scaled-format quantization (quantize + encode, one element per byte) of
// 16M fp32 values against libnum's fp16 nearest-even encode_array on the
// same input, in the same run. Data: magnitudes log-uniform over
// 2^-30 .. 2^10 with random signs (as convert_bench).
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "libnum/array.hpp"
#include "libnum/scaled_array.hpp"
#include "realistic_data.hpp"

namespace {

constexpr std::size_t n = bench::realistic_size;

void items(benchmark::State& state) { state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n)); }

void fp16_encode_array(benchmark::State& state, num::rounding mode) {
  const std::vector<float>& in = bench::realistic_data();  // generated outside the timed loop
  std::vector<std::uint16_t> out(n);
  num::array_options o;
  o.target = num::binary16;
  o.spec.mode = mode;
  for (auto _ : state) {
    num::encode_array(in, out, o);
    benchmark::ClobberMemory();
  }
  items(state);
}

// tensor_amax: NVFP4's tensor amax when known beforehand (delayed scaling:
// one pass over the input); NaN computes it from the input first (two passes).
// The reference of the speed targets, and (stochastic) the cost of the same
// vectorised Philox stream in libnum's own array kernel.
void BM_fp16_encode_array_nearest_even(benchmark::State& s) { fp16_encode_array(s, num::rounding::nearest_even); }
void BM_fp16_encode_array_stochastic(benchmark::State& s) { fp16_encode_array(s, num::rounding::stochastic); }

void quantize_named(benchmark::State& state, const char* name, num::rounding mode,
                    float tensor_amax = __builtin_nanf("")) {
  num::scaled_options o;
  o.format = *num::find_scaled_format(name);
  o.spec.mode = mode;
  o.tensor_amax = tensor_amax;
  const std::vector<float>& in = bench::realistic_data();
  std::vector<std::uint8_t> elements(n);
  std::vector<std::uint32_t> scales(num::scale_count(o.format, {1, n}));
  for (auto _ : state) {
    num::quantize(in, {1, n}, elements, scales, o);
    benchmark::ClobberMemory();
  }
  items(state);
}

void BM_mxfp8_nearest_even(benchmark::State& s) { quantize_named(s, "mxfp8", num::rounding::nearest_even); }
void BM_mxfp4_nearest_even(benchmark::State& s) { quantize_named(s, "mxfp4", num::rounding::nearest_even); }
void BM_nvfp4_nearest_even(benchmark::State& s) { quantize_named(s, "nvfp4", num::rounding::nearest_even); }
void BM_nvfp4_nearest_even_given_amax(benchmark::State& s) {
  quantize_named(s, "nvfp4", num::rounding::nearest_even, 1024.0f);  // the data's magnitudes stay below 2^10
}
void BM_mxfp8_stochastic(benchmark::State& s) { quantize_named(s, "mxfp8", num::rounding::stochastic); }
void BM_mxfp4_stochastic(benchmark::State& s) { quantize_named(s, "mxfp4", num::rounding::stochastic); }
void BM_nvfp4_stochastic(benchmark::State& s) { quantize_named(s, "nvfp4", num::rounding::stochastic); }

}  // namespace

BENCHMARK(BM_fp16_encode_array_nearest_even)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_fp16_encode_array_stochastic)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_mxfp8_nearest_even)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_mxfp4_nearest_even)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_nvfp4_nearest_even)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_nvfp4_nearest_even_given_amax)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_mxfp8_stochastic)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_mxfp4_stochastic)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_nvfp4_stochastic)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
