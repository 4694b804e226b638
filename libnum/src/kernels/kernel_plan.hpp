// Internal: what an array-kernel call has decided before any element is
// touched, and the entry points each SIMD path provides.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "libnum/array.hpp"
#include "random_word_bits.hpp"

namespace num::kernels {

/// What a kernel reads and writes.
enum class operation : std::uint8_t {
  encode_f32,  ///< float -> encoding (out_width bytes)
  round_f32,   ///< float -> float holding the rounded value
  encode_f64,  ///< double -> encoding
  round_f64,   ///< double -> float holding the rounded value
  decode,      ///< encoding (in_width bytes) -> float
};

/// Specialised loops for the common cases: the CPU's own conversion where it
/// gives the core's answer, or a lane body narrowed to one case.
enum class hardware_shortcut : std::uint8_t {
  none,
  fp16_convert,  ///< vcvtps2ph with a static rounding mode (ne, rz, ru, rd)
  bf16_nearest,  ///< bf16 nearest-even (vcvtneps2bf16 on blocks without subnormal inputs)
  stochastic_16bit,  ///< fp32 or fp64 -> fp16/bf16 stochastic, no counts or flushing (kernel_stochastic16.hpp)
  /// fp64 -> fp16/bf16 nearest-even, no counts or flushing: rounded to odd
  /// into fp32 (24 bits, at least two more than the target keeps at every
  /// exponent, so the second rounding is exact), then fp16_convert or
  /// bf16_nearest (kernel_f64_nearest16.hpp). The AVX-512 and AVX2 paths;
  /// the scalar path runs the lanes.
  f64_nearest_16bit,
};

/// Target constants in the bit patterns of one input domain (fp32 or fp64):
/// magnitudes only, the sign is handled apart.
struct domain_constants {
  std::uint64_t min_normal = 0;       ///< 2^emin
  std::uint64_t half_min_normal = 0;  ///< 2^(emin-1)
  std::uint64_t max_finite = 0;       ///< the target's largest finite value
  std::uint64_t low_quantum = 0;      ///< the spacing of the grid below 2^emin (2^emin without subnormals)
  std::uint64_t overflow_positive = 0;  ///< what a positive overflow becomes
  std::uint64_t overflow_negative = 0;  ///< what a negative overflow becomes (magnitude)
  std::uint64_t infinity_result = 0;    ///< what an infinite input becomes (magnitude)
  std::uint64_t nan_payload = 0;        ///< input NaN payload bits the target keeps
  std::int64_t normal_shift = 0;        ///< discarded bits of a normal-range input: M - (p - 1)
  std::int64_t low_shift_base = 0;      ///< discarded bits below 2^emin = low_shift_base - max(E, 1)
  std::int64_t tiny_shift_base = 0;     ///< the same at full precision in [2^(emin-1), 2^emin)
  std::int64_t subnormal_shift_base = 0;  ///< encoding a value below 2^emin: significand >> (this - max(E, 1))
  std::uint64_t normal_rebias = 0;      ///< subtracted from a normal pattern to re-bias it for the target
};

/// The target's encoding, for encode and decode.
struct encoding_constants {
  int fraction_bits = 10;
  std::uint32_t sign_mask = 0;
  std::uint32_t width_mask = 0;          ///< the format's bits
  std::uint32_t fraction_mask = 0;
  std::uint32_t exponent_all_ones = 0;   ///< exponent_field_max << fraction_bits
  std::uint32_t nan_all_ones = 0;        ///< S.1..1.1..1 without sign (all_ones NaN encoding)
  bool ieee_nans = true;
  bool subnormals = true;
  std::uint32_t decode_rebias = 0;       ///< added to (magnitude << (23 - p + 1)) for normal values
  std::int32_t decode_linear_shift = 0;  ///< fp32 pattern of a subnormal below 2^-126: fraction << this
  std::uint32_t decode_scale_down = 0;   ///< subtracted from float(fraction)'s pattern otherwise
  flags infinity_flags = flags::none;    ///< flags an infinite input raises
  /// The encoding is the top bits of the fp32 pattern (bf16, tf32, fp32), so
  /// an fp32 holding a value of the format encodes by a shift.
  bool fp32_prefix = false;
  bool is_binary16 = false;  ///< vcvtps2ph encodes rounded values exactly
};

/// Everything a kernel needs, decided before any element is touched.
struct kernel_plan {
  operation op = operation::encode_f32;
  int width = 2;  ///< bytes per encoding (1, 2 or 4)
  format target = binary16;
  round_spec spec{};
  std::uint64_t seed = 0, stream = 0;
  random_draws draws = random_draws::full_word;  ///< how positions map to random words
  bool want_counts = false;
  bool want_non_finite = false;  ///< the hardware shortcuts watch their results only when asked
  bool flush_inputs = false;
  bool flush_outputs = false;
  hardware_shortcut shortcut = hardware_shortcut::none;
  int hardware_rounding_immediate = 0;  ///< vcvtps2ph imm8 for fp16_convert
  /// The constants in the patterns of the domain `op` reads (fp32 for
  /// encode_f32/round_f32, fp64 for encode_f64/round_f64; unused by decode):
  /// one set, so a call builds (and zero-fills) only what it reads.
  domain_constants domain;
  encoding_constants encoding;
};

/// Per-chunk flags and counts.
struct tally {
  flags raised = flags::none;
  conversion_counts counts;
  bool non_finite = false;  ///< some result is NaN or ±inf (always found by the lane paths)
  tally& operator+=(const tally& o) {
    raised |= o.raised;
    counts += o.counts;
    non_finite = non_finite || o.non_finite;
    return *this;
  }
};

/// One contiguous piece of an array: elements [0, n) of in/out, whose first
/// element has stochastic position `first_index`.
struct chunk {
  const void* in;
  void* out;
  std::size_t n;
  std::uint64_t first_index;
};

/// Each path's entry point (defined in kernels_<path>.cpp).
tally run_scalar(const kernel_plan& plan, const chunk& c);
tally run_avx2(const kernel_plan& plan, const chunk& c);
tally run_avx512(const kernel_plan& plan, const chunk& c);
/// Whether any of in[0, n) is a NaN or an infinity: num::any_non_finite's
/// bodies for each path (non_finite.cpp, kernels_avx2.cpp, kernels_avx512.cpp).
bool any_non_finite_scalar(const float* in, std::size_t n);
bool any_non_finite_avx2(const float* in, std::size_t n);
bool any_non_finite_avx512(const float* in, std::size_t n);
/// Positions at which the vector generators start: a multiple of four
/// elements covers whole Philox blocks under full_word draws, of eight under
/// half_word draws, so the SIMD paths start their runs at multiples of 8.
constexpr std::uint64_t draw_alignment = 8;
/// The random words of positions first .. first+n-1 under the plan's draws
/// (for partial blocks).
void fill_random_words(const kernel_plan& plan, std::uint64_t first, std::uint32_t* out, std::size_t n);

/// A whole call's tally and the threads it ran on.
struct parallel_tally {
  tally sum;
  unsigned threads = 1;
};

/// Runs `plan` over the whole array on at most `threads` threads (0: OpenMP's
/// count), one per parallel_threshold elements (unset: the plan's measured
/// break-even), in chunks at multiples of 64 elements.
parallel_tally run_parallel(const kernel_plan& plan, simd_path path, const void* in, void* out, std::size_t n,
                            std::size_t in_stride, std::size_t out_stride, std::uint64_t first_index,
                            unsigned threads, std::optional<std::size_t> parallel_threshold);

}  // namespace num::kernels
