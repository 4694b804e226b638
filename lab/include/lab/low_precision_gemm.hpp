// Matrix products whose partial sums live in a low-precision format (the
// IPU's "half partials").
//
// For C = op(A) * op(B) + beta * C with A and B holding values of the
// format, every output element is summed on its own:
//   sequential (block 0):  c <- round(c + a[i,p] * b[p,j])  for p = 0 .. k-1,
//                          starting from beta * C[i,j] (0 when beta is 0);
//   chunk-based (block B): each run of B consecutive products is summed the
//                          sequential way from 0 into s, then c <- round(c + s).
// Each product of two format values is exact (p <= 26 bits fits a double),
// and each sum is rounded ONCE from its exact value into the format with the
// given round_spec: the sum is formed in double and, where double is inexact,
// rounded to odd, which keeps the exact sum's top 52 bits: rounding that
// once more equals rounding the exact value in every mode for every libnum
// format (p + 2 <= 53), and in stochastic mode with r random bits where
// p + r + 1 <= 53 (the draw reads p + r bits). Beyond that (binary32 with
// r > 28) the engine refuses: see low_accumulation_is_exact. This equals the
// libnum scalar core's num::fma(format, a, b, c) applied in sequence.
//
// Stochastic rounding of element (i, j) at step p uses word
// p*m*n + i*n + j of random_stream(seed, stream); block sums continue at
// k*m*n + block*m*n + i*n + j.
#pragma once

#include <cstddef>
#include <cstdint>

#include <libnum/format.hpp>
#include <libnum/rounding.hpp>

#include "lab/op_context.hpp"

namespace lab {

/// How the partial sums of one GEMM are rounded.
struct low_accumulation {
  num::format format = num::binary16;
  num::round_spec spec{};
  std::size_t block = 0;  ///< 0: sequential; else chunk size
  std::uint64_t seed = 0, stream = 0;
};

/// Whether a sum formed in double and rounded to odd, then rounded into `f`
/// with `spec`, equals the exact sum rounded once (see the file comment):
/// false only for stochastic rounding with p + random_bits + 1 > 53. The
/// same holds for every emulated sum of this kind (pure-format updates).
constexpr bool low_accumulation_is_exact(const num::format& f, const num::round_spec& spec) {
  constexpr int double_precision = 53;
  return spec.mode != num::rounding::stochastic || f.precision + spec.random_bits + 1 <= double_precision;
}

/// C = op(A) * op(B) + beta * C with partials in acc.format (see the file
/// comment). Uses an AVX-512 kernel for binary16 with nearest-even and IEEE
/// overflow on CPUs that have it, the portable path otherwise; both give
/// identical bits. Throws std::invalid_argument where
/// !low_accumulation_is_exact(acc.format, acc.spec).
void gemm_low_accumulation(const gemm_args& g, const low_accumulation& acc);

/// The portable path of gemm_low_accumulation (exposed so tests and the
/// benchmark can compare the two).
void gemm_low_accumulation_portable(const gemm_args& g, const low_accumulation& acc);

/// Whether the fast binary16 nearest-even kernel serves `acc` on this CPU.
bool low_accumulation_fast_path(const low_accumulation& acc);

}  // namespace lab
