// Scaled-format quantization (quantize + encode, one element per byte) of
// 16M fp32 values against libnum's fp16 nearest-even encode_array on the
// same input, in the same run; and the fp32 values of a quantized operand,
// quantize + dequantize against the fused quantize_dequantize. Data: magnitudes log-uniform over
// 2^-30 .. 2^10 with random signs (as convert_bench), and blocks as a
// trainer's operands hold them (bench::operand_data) in its row widths.
#include <benchmark/benchmark.h>

#include <cmath>
#include <span>
#include <string>
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
  num::conversion_result r;
  for (auto _ : state) {
    r = num::encode_array(in, out, o);
    benchmark::ClobberMemory();
  }
  items(state);
  state.SetLabel(std::string(num::simd_path_name(r.path)));  // the path that ran
}

// tensor_amax: NVFP4's tensor amax when known beforehand (delayed scaling:
// one pass over the input); NaN computes it from the input first (two passes).
// The reference of the speed targets, and (stochastic) the cost of the same
// vectorised Philox stream in libnum's own array kernel.
void BM_fp16_encode_array_nearest_even(benchmark::State& s) { fp16_encode_array(s, num::rounding::nearest_even); }
void BM_fp16_encode_array_stochastic(benchmark::State& s) { fp16_encode_array(s, num::rounding::stochastic); }

void quantize_named(benchmark::State& state, const char* name, num::rounding mode,
                    float tensor_amax = __builtin_nanf(""),
                    num::element_layout layout = num::element_layout::byte_per_element) {
  num::scaled_options o;
  o.format = *num::find_scaled_format(name);
  o.spec.mode = mode;
  o.tensor_amax = tensor_amax;
  o.layout = layout;
  const std::vector<float>& in = bench::realistic_data();
  std::vector<std::uint8_t> elements(num::element_bytes(o.format.element, layout, n));
  std::vector<std::uint32_t> scales(num::scale_count(o.format, {1, n}));
  num::scaled_result r;
  for (auto _ : state) {
    r = num::quantize(in, {1, n}, elements, scales, o);
    benchmark::ClobberMemory();
  }
  items(state);
  state.SetLabel(std::string(num::simd_path_name(r.path)));  // the path that ran
}

void BM_mxfp8_nearest_even(benchmark::State& s) { quantize_named(s, "mxfp8", num::rounding::nearest_even); }
void BM_mxfp4_nearest_even(benchmark::State& s) { quantize_named(s, "mxfp4", num::rounding::nearest_even); }
void BM_nvfp4_nearest_even(benchmark::State& s) { quantize_named(s, "nvfp4", num::rounding::nearest_even); }
void BM_nvfp4_nearest_even_given_amax(benchmark::State& s) {
  quantize_named(s, "nvfp4", num::rounding::nearest_even, 1024.0f);  // the data's magnitudes stay below 2^10
}
// MXFP6 one byte per element beside packed (four in three bytes: the
// kernels' bytes packed band by band), and MXINT8 in a mode other than
// nearest-even (each ran scalar before session 19, 70-130x slower).
void BM_mxfp6_nearest_even(benchmark::State& s) { quantize_named(s, "mxfp6", num::rounding::nearest_even); }
void BM_mxfp6_packed_nearest_even(benchmark::State& s) {
  quantize_named(s, "mxfp6", num::rounding::nearest_even, __builtin_nanf(""), num::element_layout::packed);
}
void BM_mxint8_nearest_even(benchmark::State& s) { quantize_named(s, "mxint8", num::rounding::nearest_even); }
void BM_mxint8_toward_zero(benchmark::State& s) { quantize_named(s, "mxint8", num::rounding::toward_zero); }
// FP8 per-tensor (an fp32 scale), nearest-even beside stochastic (which ran
// scalar before session 19).
void BM_fp8_tensor_nearest_even(benchmark::State& s) { quantize_named(s, "fp8-tensor", num::rounding::nearest_even); }
void BM_fp8_tensor_stochastic(benchmark::State& s) { quantize_named(s, "fp8-tensor", num::rounding::stochastic); }
void BM_mxfp8_stochastic(benchmark::State& s) { quantize_named(s, "mxfp8", num::rounding::stochastic); }
void BM_mxfp4_stochastic(benchmark::State& s) { quantize_named(s, "mxfp4", num::rounding::stochastic); }
void BM_nvfp4_stochastic(benchmark::State& s) { quantize_named(s, "nvfp4", num::rounding::stochastic); }

// A GEMM operand of 4096 rows by k = 4096 as a scaled-recipe trainer
// emulates it: the fp32 values its quantized form stands for, by quantize +
// dequantize (two calls, the codes going through memory) or by the fused call.
constexpr num::tensor_shape operand_shape{4096, n / 4096};

num::scaled_options operand_options(const char* name) {
  num::scaled_options o;
  o.format = *num::find_scaled_format(name);
  return o;
}

void quantize_then_dequantize(benchmark::State& state, const char* name) {
  const num::scaled_options o = operand_options(name);
  const std::vector<float>& in = bench::realistic_data();
  std::vector<std::uint8_t> elements(n);
  std::vector<std::uint32_t> scales(num::scale_count(o.format, operand_shape));
  std::vector<float> out(n);
  for (auto _ : state) {
    const num::scaled_result r = num::quantize(in, operand_shape, elements, scales, o);
    num::dequantize(elements, scales, r.tensor_scale, operand_shape, out, o);
    benchmark::ClobberMemory();
  }
  items(state);
}

void quantize_dequantize_fused(benchmark::State& state, const char* name,
                               num::rounding mode = num::rounding::nearest_even) {
  num::scaled_options o = operand_options(name);
  o.spec.mode = mode;
  const std::vector<float>& in = bench::realistic_data();
  std::vector<std::uint32_t> scales(num::scale_count(o.format, operand_shape));
  std::vector<float> out(n);
  for (auto _ : state) {
    num::quantize_dequantize(in, operand_shape, out, scales, o);
    benchmark::ClobberMemory();
  }
  items(state);
}

void dequantize_only(benchmark::State& state, const char* name) {
  const num::scaled_options o = operand_options(name);
  const std::vector<float>& in = bench::realistic_data();
  std::vector<std::uint8_t> elements(n);
  std::vector<std::uint32_t> scales(num::scale_count(o.format, operand_shape));
  std::vector<float> out(n);
  const num::scaled_result r = num::quantize(in, operand_shape, elements, scales, o);
  for (auto _ : state) {
    num::dequantize(elements, scales, r.tensor_scale, operand_shape, out, o);
    benchmark::ClobberMemory();
  }
  items(state);
}

void BM_mxfp8_dequantize(benchmark::State& s) { dequantize_only(s, "mxfp8"); }
void BM_mxfp8_quantize_then_dequantize(benchmark::State& s) { quantize_then_dequantize(s, "mxfp8"); }
void BM_mxfp8_quantize_dequantize_fused(benchmark::State& s) { quantize_dequantize_fused(s, "mxfp8"); }
void BM_mxfp4_quantize_then_dequantize(benchmark::State& s) { quantize_then_dequantize(s, "mxfp4"); }
void BM_mxfp4_quantize_dequantize_fused(benchmark::State& s) { quantize_dequantize_fused(s, "mxfp4"); }
// A gradient operand of the MXFP4 recipe, rounded stochastically.
void BM_mxfp4_stochastic_quantize_dequantize_fused(benchmark::State& s) {
  quantize_dequantize_fused(s, "mxfp4", num::rounding::stochastic);
}
void BM_nvfp4_quantize_then_dequantize(benchmark::State& s) { quantize_then_dequantize(s, "nvfp4"); }
void BM_nvfp4_quantize_dequantize_fused(benchmark::State& s) { quantize_dequantize_fused(s, "nvfp4"); }
void BM_nvfp4_2d_quantize_then_dequantize(benchmark::State& s) { quantize_then_dequantize(s, "nvfp4-2d"); }
void BM_nvfp4_2d_quantize_dequantize_fused(benchmark::State& s) { quantize_dequantize_fused(s, "nvfp4-2d"); }
void BM_fp8_tensor_quantize_dequantize_fused(benchmark::State& s) { quantize_dequantize_fused(s, "fp8-tensor"); }
void BM_fp8_block_quantize_then_dequantize(benchmark::State& s) { quantize_then_dequantize(s, "fp8-block"); }
void BM_fp8_block_quantize_dequantize_fused(benchmark::State& s) { quantize_dequantize_fused(s, "fp8-block"); }

// The trainer's operands (operand_data) in its GEMMs' row widths: k = 9 (a
// 3x3 convolution of one channel: every row one partial block) and k = 784
// (24.5 blocks of 32), nearest-even; the rows' values as quantize +
// dequantize or the fused call, and the scalar path for reference (where
// every block ran before the kernels took partial blocks).
constexpr std::size_t operand_count(std::size_t cols) { return n / cols * cols; }

void operand_quantize_dequantize(benchmark::State& state, const char* name, std::size_t cols, bool fused,
                                 num::simd_path path = num::simd_path::automatic) {
  num::scaled_options o = operand_options(name);
  o.path = path;
  const num::tensor_shape shape{n / cols, cols};
  const std::span<const float> in(bench::operand_data().data(), operand_count(cols));
  std::vector<std::uint8_t> elements(in.size());
  std::vector<std::uint32_t> scales(num::scale_count(o.format, shape));
  std::vector<float> out(in.size());
  for (auto _ : state) {
    if (fused) {
      num::quantize_dequantize(in, shape, out, scales, o);
    } else {
      const num::scaled_result r = num::quantize(in, shape, elements, scales, o);
      num::dequantize(elements, scales, r.tensor_scale, shape, out, o);
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * in.size()));
}

void BM_mxfp8_k9_two_calls(benchmark::State& s) { operand_quantize_dequantize(s, "mxfp8", 9, false); }
void BM_mxfp8_k9_fused(benchmark::State& s) { operand_quantize_dequantize(s, "mxfp8", 9, true); }
void BM_mxfp8_k9_scalar_path(benchmark::State& s) {
  operand_quantize_dequantize(s, "mxfp8", 9, false, num::simd_path::scalar);
}
void BM_mxfp8_k784_two_calls(benchmark::State& s) { operand_quantize_dequantize(s, "mxfp8", 784, false); }
void BM_mxfp8_k784_fused(benchmark::State& s) { operand_quantize_dequantize(s, "mxfp8", 784, true); }
void BM_mxfp4_k784_two_calls(benchmark::State& s) { operand_quantize_dequantize(s, "mxfp4", 784, false); }
void BM_mxfp4_k784_fused(benchmark::State& s) { operand_quantize_dequantize(s, "mxfp4", 784, true); }
void BM_nvfp4_k9_two_calls(benchmark::State& s) { operand_quantize_dequantize(s, "nvfp4", 9, false); }
void BM_nvfp4_k9_fused(benchmark::State& s) { operand_quantize_dequantize(s, "nvfp4", 9, true); }
void BM_nvfp4_k9_scalar_path(benchmark::State& s) {
  operand_quantize_dequantize(s, "nvfp4", 9, false, num::simd_path::scalar);
}
void BM_nvfp4_k784_two_calls(benchmark::State& s) { operand_quantize_dequantize(s, "nvfp4", 784, false); }
void BM_nvfp4_k784_fused(benchmark::State& s) { operand_quantize_dequantize(s, "nvfp4", 784, true); }

}  // namespace

BENCHMARK(BM_mxfp8_k9_two_calls)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_mxfp8_k9_fused)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_mxfp8_k9_scalar_path)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_mxfp8_k784_two_calls)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_mxfp8_k784_fused)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_mxfp4_k784_two_calls)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_mxfp4_k784_fused)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_nvfp4_k9_two_calls)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_nvfp4_k9_fused)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_nvfp4_k9_scalar_path)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_nvfp4_k784_two_calls)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_nvfp4_k784_fused)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_fp16_encode_array_nearest_even)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_fp16_encode_array_stochastic)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_mxfp8_nearest_even)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_mxfp4_nearest_even)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_nvfp4_nearest_even)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_nvfp4_nearest_even_given_amax)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_mxfp6_nearest_even)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_mxfp6_packed_nearest_even)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_mxint8_nearest_even)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_mxint8_toward_zero)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_fp8_tensor_nearest_even)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_fp8_tensor_stochastic)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_mxfp8_stochastic)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_mxfp4_stochastic)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_nvfp4_stochastic)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_mxfp8_dequantize)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_mxfp8_quantize_then_dequantize)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_mxfp8_quantize_dequantize_fused)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_mxfp4_quantize_then_dequantize)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_mxfp4_quantize_dequantize_fused)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_mxfp4_stochastic_quantize_dequantize_fused)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_nvfp4_quantize_then_dequantize)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_nvfp4_quantize_dequantize_fused)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_nvfp4_2d_quantize_then_dequantize)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_nvfp4_2d_quantize_dequantize_fused)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_fp8_tensor_quantize_dequantize_fused)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_fp8_block_quantize_then_dequantize)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_fp8_block_quantize_dequantize_fused)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
