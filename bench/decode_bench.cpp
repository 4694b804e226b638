// fp16 / bf16 -> fp32 decoding throughput: num::decode_array against the
// plain hardware loops (vcvtph2ps for fp16; a 16-bit shift for bf16, which is
// exact for every bf16 encoding) in the same run. Decoding was once ~7x slower
// per element than it needed to be (a runtime code width and a variable-size
// copy on every vector); the in-cache case catches that, the 16-element case
// the fixed cost of a call. Codes: the realistic data rounded to nearest-even.
#include <benchmark/benchmark.h>

// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*(), which its
// -Wmaybe-uninitialized reports once inlined (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wuninitialized"
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <cstdint>
#include <vector>

#include "libnum/array.hpp"
#include "libnum/cpu_features.hpp"
#include "realistic_data.hpp"

namespace {

const std::vector<std::uint16_t>& codes_of(const num::format& f) {
  static const auto encode = [](const num::format& target) {
    const std::vector<float>& in = bench::realistic_data();
    std::vector<std::uint16_t> codes(in.size());
    num::array_options o;
    o.target = target;
    num::encode_array(in, codes, o);
    return codes;
  };
  static const std::vector<std::uint16_t> fp16 = encode(num::binary16);
  static const std::vector<std::uint16_t> bf16 = encode(num::bfloat16_format);
  return f == num::binary16 ? fp16 : bf16;
}

template <class Decode>
void time_decoding(benchmark::State& state, const num::format& f, Decode decode) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::uint16_t* in = codes_of(f).data();
  std::vector<float> out(n);
  for (auto _ : state) {
    decode(in, out.data(), n);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * n * 6));
}

// The plain hardware loops (the references); n is a multiple of 16.
void BM_hw_vcvtph2ps_zmm(benchmark::State& state) {
  if (!num::host_cpu().avx512f) return state.SkipWithError("no AVX-512");
  time_decoding(state, num::binary16,
                [](const std::uint16_t* in, float* out, std::size_t n) __attribute__((target("avx512f"))) {
                  for (std::size_t i = 0; i < n; i += 16) {
                    _mm512_storeu_ps(out + i,
                                     _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i))));
                  }
                });
}
void BM_hw_bf16_shift_zmm(benchmark::State& state) {
  if (!num::host_cpu().avx512f) return state.SkipWithError("no AVX-512");
  time_decoding(state, num::bfloat16_format,
                [](const std::uint16_t* in, float* out, std::size_t n) __attribute__((target("avx512f"))) {
                  for (std::size_t i = 0; i < n; i += 16) {
                    const __m512i wide = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i)));
                    _mm512_storeu_si512(out + i, _mm512_slli_epi32(wide, 16));
                  }
                });
}

void decode_with_libnum(benchmark::State& state, const num::format& f) {
  time_decoding(state, f, [&f](const std::uint16_t* in, float* out, std::size_t n) {
    num::decode_options o;
    o.source = f;
    num::decode_array(std::span<const std::uint16_t>(in, n), std::span<float>(out, n), o);
  });
}
void BM_libnum_fp16_decode(benchmark::State& state) { decode_with_libnum(state, num::binary16); }
void BM_libnum_bf16_decode(benchmark::State& state) { decode_with_libnum(state, num::bfloat16_format); }

void sizes(benchmark::internal::Benchmark* b) {
  for (std::int64_t n : {std::int64_t{16}, std::int64_t{1} << 14, static_cast<std::int64_t>(bench::realistic_size)}) {
    b->Arg(n);
  }
}

}  // namespace

BENCHMARK(BM_hw_vcvtph2ps_zmm)->Apply(sizes);
BENCHMARK(BM_libnum_fp16_decode)->Apply(sizes);
BENCHMARK(BM_hw_bf16_shift_zmm)->Apply(sizes);
BENCHMARK(BM_libnum_bf16_decode)->Apply(sizes);
BENCHMARK_MAIN();
