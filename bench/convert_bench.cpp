// fp32 -> fp16 / bf16 conversion throughput: libnum's array kernels against
// the CPU's own instructions in a plain loop, Imath::half, Eigen::half and
// Eigen::bfloat16 element by element, and a plain memcpy (bandwidth ceiling).
// Sizes: a sweep from 16 elements (where the fixed cost of a call shows:
// this case caught a CPUID per call, 28 us in a VM, and stays for good)
// through 16K (in cache) to 16M (out of cache). Data: magnitudes
// log-uniform over 2^-30 .. 2^10 with random signs.
#include <libnum/cpu_features.hpp>
#include <Eigen/Core>
#include <Imath/half.h>
#include <benchmark/benchmark.h>

// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*(), which its
// -Wmaybe-uninitialized reports once inlined (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wuninitialized"
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "libnum/array.hpp"
#include "realistic_data.hpp"

namespace {

constexpr std::size_t in_cache = std::size_t{1} << 14;
constexpr std::size_t out_of_cache = bench::realistic_size;

// Elements/s and bytes/s (bytes read plus written).
void count(benchmark::State& state, std::size_t n, std::size_t bytes_per_element) {
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * n * bytes_per_element));
}

std::size_t size_of(const benchmark::State& state) { return static_cast<std::size_t>(state.range(0)); }

// Times convert(in, out, n) over `data` (at least n values) into an array of Out.
template <class Out, class Convert>
void time_conversion_on(benchmark::State& state, const std::vector<float>& data, std::size_t bytes_per_element,
                        Convert convert) {
  const std::size_t n = size_of(state);
  const float* in = data.data();
  std::vector<Out> out(n);
  for (auto _ : state) {
    convert(in, out.data(), n);
    benchmark::ClobberMemory();
  }
  count(state, n, bytes_per_element);
}

// The same over the realistic data.
template <class Out, class Convert>
void time_conversion(benchmark::State& state, std::size_t bytes_per_element, Convert convert) {
  time_conversion_on<Out>(state, bench::realistic_data(), bytes_per_element, convert);
}

// A layer's weights as the rounding of an update sees them: normal with
// standard deviation 0.05 (He initialisation for a fan-in of 800), so about
// 0.1% of the values lie below fp16's least normal 2^-14 and 1.5% of 16-value
// vectors hold one. The realistic data above puts 40% of its values there
// (log-uniform over 2^-30 .. 2^10), so that every rounding case is timed;
// the two bracket what a fast path for normal-range vectors can gain.
const std::vector<float>& weight_data() {
  static const std::vector<float> data = [] {
    std::mt19937 rng(2026);
    std::normal_distribution<float> normal(0.0f, 0.05f);
    std::vector<float> v(bench::realistic_size);
    for (float& x : v) x = normal(rng);
    return v;
  }();
  return data;
}

void BM_memcpy_fp32(benchmark::State& state) {
  time_conversion<float>(state, 8, [](const float* in, float* out, std::size_t n) {
    std::memcpy(out, in, n * sizeof(float));
  });
}

// The plain hardware loops (the targets' reference); n is a multiple of 16.
void BM_hw_vcvtps2ph_zmm(benchmark::State& state) {
  // Without this check the loop dies of SIGILL on CPUs without AVX-512
  // (seen on an AVX2-only EPYC guest), taking the rest of the run with it.
  if (!num::host_cpu().avx512f) return state.SkipWithError("no AVX-512 F on this CPU");
  time_conversion<std::uint16_t>(
      state, 6, [](const float* in, std::uint16_t* out, std::size_t n) __attribute__((target("avx512f"))) {
        for (std::size_t i = 0; i < n; i += 16) {
          _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                              _mm512_cvtps_ph(_mm512_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT));
        }
      });
}

void BM_hw_vcvtps2ph_ymm(benchmark::State& state) {
  time_conversion<std::uint16_t>(
      state, 6, [](const float* in, std::uint16_t* out, std::size_t n) __attribute__((target("avx2,f16c"))) {
        for (std::size_t i = 0; i < n; i += 8) {
          _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                           _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT));
        }
      });
}

void BM_hw_fp16_round_trip_zmm(benchmark::State& state) {
  if (!num::host_cpu().avx512f) return state.SkipWithError("no AVX-512 F on this CPU");
  time_conversion<float>(state, 8, [](const float* in, float* out, std::size_t n) __attribute__((target("avx512f"))) {
    for (std::size_t i = 0; i < n; i += 16) {
      _mm512_storeu_ps(out + i, _mm512_cvtph_ps(_mm512_cvtps_ph(_mm512_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT)));
    }
  });
}

void BM_hw_vcvtneps2bf16_zmm(benchmark::State& state) {
  if (!num::host_cpu().avx512bf16) {
    state.SkipWithError("no AVX512-BF16 on this CPU");
    return;
  }
  time_conversion<std::uint16_t>(
      state, 6,
      [](const float* in, std::uint16_t* out, std::size_t n) __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) {
        for (std::size_t i = 0; i < n; i += 16) {
          _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                              reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(_mm512_loadu_ps(in + i))));
        }
      });
}

// Element-by-element libraries.
void BM_imath_half(benchmark::State& state) {
  time_conversion<std::uint16_t>(state, 6, [](const float* in, std::uint16_t* out, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) out[i] = Imath::half(in[i]).bits();
  });
}

void BM_eigen_half(benchmark::State& state) {
  time_conversion<std::uint16_t>(state, 6, [](const float* in, std::uint16_t* out, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) out[i] = Eigen::numext::bit_cast<std::uint16_t>(Eigen::half(in[i]));
  });
}

void BM_eigen_bfloat16(benchmark::State& state) {
  time_conversion<std::uint16_t>(state, 6, [](const float* in, std::uint16_t* out, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) out[i] = Eigen::numext::bit_cast<std::uint16_t>(Eigen::bfloat16(in[i]));
  });
}

// libnum kernels. Arguments: size, then threads: 1; 0 = all, with the
// automatic threshold, as a caller gets it; 2 = two threads forced on any
// size (parallel_threshold 0), to measure what a fork-join costs.
num::array_options options(const benchmark::State& state, num::format f, num::rounding mode, int r = 32,
                           num::random_draws draws = num::random_draws::full_word) {
  num::array_options o;
  o.target = f;
  o.spec.mode = mode;
  o.spec.random_bits = r;
  o.draws = draws;
  o.seed = 42;
  o.threads = static_cast<unsigned>(state.range(1));
  if (o.threads > 1) o.parallel_threshold = 0;
  return o;
}

// fp8 E4M3 encodings: the general lane body, no hardware shortcut.
void encode_fp8(benchmark::State& state, num::rounding mode) {
  const num::array_options o = options(state, num::fp8_e4m3, mode);
  time_conversion<std::uint8_t>(state, 5, [&o](const float* in, std::uint8_t* out, std::size_t n) {
    num::encode_array(std::span<const float>(in, n), std::span<std::uint8_t>(out, n), o);
  });
}
void BM_libnum_fp8_ne_bits(benchmark::State& s) { encode_fp8(s, num::rounding::nearest_even); }
void BM_libnum_fp8_sr32_bits(benchmark::State& s) { encode_fp8(s, num::rounding::stochastic); }

void encode_bits(benchmark::State& state, num::format f, num::rounding mode, int r = 32,
                 num::random_draws draws = num::random_draws::full_word) {
  const num::array_options o = options(state, f, mode, r, draws);
  time_conversion<std::uint16_t>(state, 6, [&o](const float* in, std::uint16_t* out, std::size_t n) {
    num::encode_array(std::span<const float>(in, n), std::span<std::uint16_t>(out, n), o);
  });
}

// watch: also report NaN/inf results (want_non_finite, as the trainer asks).
void round_values(benchmark::State& state, num::format f, num::rounding mode, int r = 32, bool watch = false,
                  num::random_draws draws = num::random_draws::full_word) {
  num::array_options o = options(state, f, mode, r, draws);
  o.want_non_finite = watch;
  time_conversion<float>(state, 8, [&o](const float* in, float* out, std::size_t n) {
    num::round_array(std::span<const float>(in, n), std::span<float>(out, n), o);
  });
}

void BM_libnum_fp16_ne_bits(benchmark::State& s) { encode_bits(s, num::binary16, num::rounding::nearest_even); }
// The weight-like data, nearest-even beside stochastic (r = 32, full words).
void encode_weight_bits(benchmark::State& state, num::format f, num::rounding mode) {
  const num::array_options o = options(state, f, mode);
  time_conversion_on<std::uint16_t>(state, weight_data(), 6, [&o](const float* in, std::uint16_t* out, std::size_t n) {
    num::encode_array(std::span<const float>(in, n), std::span<std::uint16_t>(out, n), o);
  });
}
void BM_libnum_fp16_ne_bits_weights(benchmark::State& s) { encode_weight_bits(s, num::binary16, num::rounding::nearest_even); }
void BM_libnum_fp16_sr32_bits_weights(benchmark::State& s) { encode_weight_bits(s, num::binary16, num::rounding::stochastic); }
void BM_libnum_bf16_ne_bits_weights(benchmark::State& s) {
  encode_weight_bits(s, num::bfloat16_format, num::rounding::nearest_even);
}
void BM_libnum_bf16_sr32_bits_weights(benchmark::State& s) {
  encode_weight_bits(s, num::bfloat16_format, num::rounding::stochastic);
}
void BM_libnum_bf16_ne_bits(benchmark::State& s) { encode_bits(s, num::bfloat16_format, num::rounding::nearest_even); }
void BM_libnum_fp16_ne_round(benchmark::State& s) { round_values(s, num::binary16, num::rounding::nearest_even); }
void BM_libnum_bf16_ne_round(benchmark::State& s) {
  round_values(s, num::bfloat16_format, num::rounding::nearest_even);
}
void BM_libnum_fp16_ne_round_watch(benchmark::State& s) {
  round_values(s, num::binary16, num::rounding::nearest_even, 32, true);
}
void BM_libnum_bf16_ne_round_watch(benchmark::State& s) {
  round_values(s, num::bfloat16_format, num::rounding::nearest_even, 32, true);
}
void BM_libnum_fp16_sr32_round_watch(benchmark::State& s) {
  round_values(s, num::binary16, num::rounding::stochastic, 32, true);
}
void BM_libnum_fp16_rz_bits(benchmark::State& s) { encode_bits(s, num::binary16, num::rounding::toward_zero); }
void BM_libnum_fp16_ru_bits(benchmark::State& s) { encode_bits(s, num::binary16, num::rounding::toward_positive); }
void BM_libnum_bf16_rz_bits(benchmark::State& s) { encode_bits(s, num::bfloat16_format, num::rounding::toward_zero); }
void BM_libnum_fp16_na_bits(benchmark::State& s) { encode_bits(s, num::binary16, num::rounding::nearest_away); }
void BM_libnum_fp16_sr32_bits(benchmark::State& s) { encode_bits(s, num::binary16, num::rounding::stochastic, 32); }
void BM_libnum_fp16_sr8_bits(benchmark::State& s) { encode_bits(s, num::binary16, num::rounding::stochastic, 8); }
void BM_libnum_bf16_sr32_bits(benchmark::State& s) {
  encode_bits(s, num::bfloat16_format, num::rounding::stochastic, 32);
}
void BM_libnum_fp16_sr32_round(benchmark::State& s) { round_values(s, num::binary16, num::rounding::stochastic, 32); }
void BM_libnum_fp16_sr8_round(benchmark::State& s) { round_values(s, num::binary16, num::rounding::stochastic, 8); }
// The opt-in half-word draws (r = 16), beside full words at the same r.
constexpr auto half_word = num::random_draws::half_word;
void BM_libnum_fp16_sr16_bits(benchmark::State& s) { encode_bits(s, num::binary16, num::rounding::stochastic, 16); }
void BM_libnum_fp16_sr16_half_bits(benchmark::State& s) {
  encode_bits(s, num::binary16, num::rounding::stochastic, 16, half_word);
}
void BM_libnum_bf16_sr16_half_bits(benchmark::State& s) {
  encode_bits(s, num::bfloat16_format, num::rounding::stochastic, 16, half_word);
}
void BM_libnum_fp16_sr16_half_round(benchmark::State& s) {
  round_values(s, num::binary16, num::rounding::stochastic, 16, false, half_word);
}

// A slice of a tensor that starts at element 5 (stochastic position 5, not
// a multiple of draw_alignment): the vector body starts at position 8, the
// first 3 elements and the tail go through the general lane algorithm. The
// aligned slice at element 0 is its reference.
void encode_slice_at(benchmark::State& state, num::format f, num::rounding mode, std::size_t start) {
  num::array_options o = options(state, f, mode);
  o.first_index = start;
  time_conversion<std::uint16_t>(state, 6, [&o, start](const float* in, std::uint16_t* out, std::size_t n) {
    num::encode_array(std::span<const float>(in + start, n), std::span<std::uint16_t>(out, n), o);
  });
}
void BM_libnum_fp16_sr32_bits_at0(benchmark::State& s) { encode_slice_at(s, num::binary16, num::rounding::stochastic, 0); }
void BM_libnum_fp16_sr32_bits_at5(benchmark::State& s) { encode_slice_at(s, num::binary16, num::rounding::stochastic, 5); }
void BM_libnum_bf16_sr32_bits_at0(benchmark::State& s) {
  encode_slice_at(s, num::bfloat16_format, num::rounding::stochastic, 0);
}
void BM_libnum_bf16_sr32_bits_at5(benchmark::State& s) {
  encode_slice_at(s, num::bfloat16_format, num::rounding::stochastic, 5);
}

// fp64 inputs to 16-bit encodings on a named path (one thread): the
// realistic data widened to double, so the values are the fp32 cases'.
const std::vector<double>& realistic_doubles() {
  static const std::vector<double> v(bench::realistic_data().begin(), bench::realistic_data().end());
  return v;
}
template <class Out = std::uint16_t>
void encode_f64_bits(benchmark::State& state, num::format f, num::rounding mode, num::simd_path path) {
  if (!num::simd_path_supported(path)) {
    state.SkipWithError("this CPU cannot run the path");
    return;
  }
  num::array_options o = options(state, f, mode);
  o.path = path;
  const std::size_t n = size_of(state);
  const double* in = realistic_doubles().data();
  std::vector<Out> out(n);
  for (auto _ : state) {
    num::encode_array(std::span<const double>(in, n), std::span<Out>(out.data(), n), o);
    benchmark::ClobberMemory();
  }
  count(state, n, 8 + sizeof(Out));
}
constexpr auto avx512 = num::simd_path::avx512;
constexpr auto avx2 = num::simd_path::avx2;
void BM_libnum_f64_fp16_ne_bits_avx512(benchmark::State& s) {
  encode_f64_bits(s, num::binary16, num::rounding::nearest_even, avx512);
}
void BM_libnum_f64_fp16_sr32_bits_avx512(benchmark::State& s) {
  encode_f64_bits(s, num::binary16, num::rounding::stochastic, avx512);
}
void BM_libnum_f64_bf16_sr32_bits_avx512(benchmark::State& s) {
  encode_f64_bits(s, num::bfloat16_format, num::rounding::stochastic, avx512);
}
void BM_libnum_f64_bf16_ne_bits_avx512(benchmark::State& s) {
  encode_f64_bits(s, num::bfloat16_format, num::rounding::nearest_even, avx512);
}
// The general lane body on fp64 inputs (the parallel threshold's fp64 costs).
void BM_libnum_f64_fp8_ne_bits_avx512(benchmark::State& s) {
  encode_f64_bits<std::uint8_t>(s, num::fp8_e4m3, num::rounding::nearest_even, avx512);
}
void BM_libnum_f64_fp8_sr32_bits_avx512(benchmark::State& s) {
  encode_f64_bits<std::uint8_t>(s, num::fp8_e4m3, num::rounding::stochastic, avx512);
}
void BM_libnum_f64_bf16_ne_bits_avx2(benchmark::State& s) {
  encode_f64_bits(s, num::bfloat16_format, num::rounding::nearest_even, avx2);
}
void BM_libnum_f64_fp16_ne_bits_avx2(benchmark::State& s) {
  encode_f64_bits(s, num::binary16, num::rounding::nearest_even, avx2);
}
void BM_libnum_f64_fp16_sr32_bits_avx2(benchmark::State& s) {
  encode_f64_bits(s, num::binary16, num::rounding::stochastic, avx2);
}
void BM_libnum_f64_bf16_sr32_bits_avx2(benchmark::State& s) {
  encode_f64_bits(s, num::bfloat16_format, num::rounding::stochastic, avx2);
}

// num::any_non_finite over the realistic data (all finite, so every value is
// read) on a named path: the portable loop (the body before AVX2 and AVX-512
// ones existed, compiled for the baseline) beside the two SIMD bodies.
// Arguments: size, then the path (1 scalar, 2 avx2, 3 avx512).
void BM_any_non_finite(benchmark::State& state) {
  const auto path = static_cast<num::simd_path>(state.range(1));
  if (!num::simd_path_supported(path)) {
    state.SkipWithError("this CPU cannot run the path");
    return;
  }
  const std::span<const float> values(bench::realistic_data().data(), size_of(state));
  for (auto _ : state) benchmark::DoNotOptimize(num::any_non_finite(values, path));
  count(state, values.size(), 4);
}
void sizes_and_paths(benchmark::internal::Benchmark* b) {
  for (std::int64_t n : {std::int64_t{4096}, std::int64_t{1} << 16, std::int64_t{out_of_cache}}) {
    for (auto path : {num::simd_path::scalar, num::simd_path::avx2, num::simd_path::avx512}) {
      b->Args({n, static_cast<std::int64_t>(path)});
    }
  }
}

// The size sweep, one thread.
void sizes(benchmark::internal::Benchmark* b) {
  for (std::size_t n : {std::size_t{16}, std::size_t{256}, std::size_t{4096}, in_cache, std::size_t{1} << 18,
                        out_of_cache}) {
    b->Args({static_cast<std::int64_t>(n), 1});
  }
}
// The sweep, then in and out of cache on all hardware threads.
void sizes_and_threads(benchmark::internal::Benchmark* b) {
  sizes(b);
  for (auto n : {in_cache, out_of_cache}) b->Args({static_cast<std::int64_t>(n), 0});
}

// In and out of cache, one thread.
void two_sizes(benchmark::internal::Benchmark* b) {
  for (auto n : {in_cache, out_of_cache}) b->Args({static_cast<std::int64_t>(n), 1});
}

// Short slices, one thread.
void short_sizes(benchmark::internal::Benchmark* b) {
  for (std::int64_t n : {16, 256, 4096}) b->Args({n, 1});
}

// The cost of a split: one thread against two forced threads, small sizes.
void forced_split(benchmark::internal::Benchmark* b) {
  for (std::int64_t n : {256, 4096, 1 << 14, 1 << 16}) {
    b->Args({n, 1});
    b->Args({n, 2});
  }
}

}  // namespace

BENCHMARK(BM_memcpy_fp32)->Apply(sizes);
BENCHMARK(BM_hw_vcvtps2ph_zmm)->Apply(sizes);
BENCHMARK(BM_hw_vcvtps2ph_ymm)->Apply(sizes);
BENCHMARK(BM_hw_fp16_round_trip_zmm)->Apply(sizes);
BENCHMARK(BM_hw_vcvtneps2bf16_zmm)->Apply(sizes);
BENCHMARK(BM_imath_half)->Apply(sizes);
BENCHMARK(BM_eigen_half)->Apply(sizes);
BENCHMARK(BM_eigen_bfloat16)->Apply(sizes);
BENCHMARK(BM_libnum_fp16_ne_bits)->Apply(sizes_and_threads);
BENCHMARK(BM_libnum_bf16_ne_bits)->Apply(sizes_and_threads);
BENCHMARK(BM_libnum_fp16_ne_round)->Apply(sizes_and_threads);
BENCHMARK(BM_libnum_bf16_ne_round)->Apply(sizes_and_threads);
BENCHMARK(BM_libnum_fp16_ne_round_watch)->Apply(sizes);
BENCHMARK(BM_libnum_bf16_ne_round_watch)->Apply(sizes);
BENCHMARK(BM_libnum_fp16_rz_bits)->Apply(sizes_and_threads);
BENCHMARK(BM_libnum_fp16_ru_bits)->Apply(sizes_and_threads);
BENCHMARK(BM_libnum_bf16_rz_bits)->Apply(sizes_and_threads);
BENCHMARK(BM_libnum_fp16_na_bits)->Apply(sizes_and_threads);
BENCHMARK(BM_libnum_fp16_sr32_bits)->Apply(sizes_and_threads);
BENCHMARK(BM_libnum_fp16_sr8_bits)->Apply(sizes_and_threads);
BENCHMARK(BM_libnum_bf16_sr32_bits)->Apply(sizes_and_threads);
BENCHMARK(BM_libnum_fp16_sr32_round)->Apply(sizes_and_threads);
BENCHMARK(BM_libnum_fp16_sr32_round_watch)->Apply(sizes);
BENCHMARK(BM_libnum_fp16_sr8_round)->Apply(sizes_and_threads);
BENCHMARK(BM_libnum_fp16_sr16_bits)->Apply(sizes_and_threads);
BENCHMARK(BM_libnum_fp16_sr16_half_bits)->Apply(sizes_and_threads);
BENCHMARK(BM_libnum_bf16_sr16_half_bits)->Apply(sizes_and_threads);
BENCHMARK(BM_libnum_fp16_sr16_half_round)->Apply(sizes_and_threads);
BENCHMARK(BM_libnum_fp8_ne_bits)->Apply(sizes_and_threads);
BENCHMARK(BM_libnum_fp8_sr32_bits)->Apply(sizes_and_threads);
BENCHMARK(BM_libnum_fp16_sr32_bits_at0)->Apply(short_sizes);
BENCHMARK(BM_libnum_fp16_sr32_bits_at5)->Apply(short_sizes);
BENCHMARK(BM_libnum_bf16_sr32_bits_at0)->Apply(short_sizes);
BENCHMARK(BM_libnum_bf16_sr32_bits_at5)->Apply(short_sizes);
BENCHMARK(BM_libnum_fp16_ne_bits)->Name("BM_libnum_fp16_ne_bits_split")->Apply(forced_split)->UseRealTime();
BENCHMARK(BM_libnum_fp16_sr32_bits)->Name("BM_libnum_fp16_sr32_bits_split")->Apply(forced_split)->UseRealTime();
BENCHMARK(BM_libnum_fp16_ne_bits_weights)->Apply(two_sizes);
BENCHMARK(BM_libnum_fp16_sr32_bits_weights)->Apply(two_sizes);
BENCHMARK(BM_libnum_bf16_ne_bits_weights)->Apply(two_sizes);
BENCHMARK(BM_libnum_bf16_sr32_bits_weights)->Apply(two_sizes);
BENCHMARK(BM_any_non_finite)->Apply(sizes_and_paths);
BENCHMARK(BM_libnum_f64_fp16_ne_bits_avx512)->Apply(two_sizes);
BENCHMARK(BM_libnum_f64_fp16_sr32_bits_avx512)->Apply(two_sizes);
BENCHMARK(BM_libnum_f64_bf16_sr32_bits_avx512)->Apply(two_sizes);
BENCHMARK(BM_libnum_f64_bf16_ne_bits_avx512)->Apply(two_sizes);
BENCHMARK(BM_libnum_f64_fp8_ne_bits_avx512)->Apply(two_sizes);
BENCHMARK(BM_libnum_f64_fp8_sr32_bits_avx512)->Apply(two_sizes);
BENCHMARK(BM_libnum_f64_fp16_ne_bits_avx2)->Apply(two_sizes);
BENCHMARK(BM_libnum_f64_bf16_ne_bits_avx2)->Apply(two_sizes);
BENCHMARK(BM_libnum_f64_fp16_sr32_bits_avx2)->Apply(two_sizes);
BENCHMARK(BM_libnum_f64_bf16_sr32_bits_avx2)->Apply(two_sizes);
BENCHMARK_MAIN();
