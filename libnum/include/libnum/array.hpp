// Array kernels: round whole arrays into a format, bit-identical to the
// scalar core (num::from_float / num::from_double / num::to_float) on every
// SIMD path and for every thread count, whatever the calling thread's MXCSR
// (rounding mode, flush-to-zero, denormals-are-zero) holds.
//
// Element i of a call uses random word
//   num::draw_word(num::random_stream(seed, stream), draws, first_index + i)
// for stochastic rounding (by default draws = full_word: word first_index + i
// of the stream), so results depend on neither threads, chunking nor the
// dispatch path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "format.hpp"
#include "philox.hpp"
#include "rounding.hpp"

namespace num {

/// An instruction-set path of the array kernels. `automatic` takes
/// NUMLAB_SIMD (scalar|avx2|avx512) from the environment if set, else the
/// best path this CPU supports.
enum class simd_path : std::uint8_t {
  automatic,
  scalar,  ///< portable C++ (GCC generic vectors, no ISA beyond the compiler's baseline)
  avx2,    ///< AVX2 + F16C (+FMA, BMI2)
  avx512,  ///< AVX-512 F/BW/DQ/VL, with AVX512-BF16 instructions where present
};

/// "auto", "scalar", "avx2", "avx512".
std::string_view simd_path_name(simd_path p);
/// Parses a simd_path name; throws std::invalid_argument naming the text.
simd_path parse_simd_path(std::string_view text);
/// Whether this CPU (and OS) can run path p; `automatic` and `scalar` always can.
bool simd_path_supported(simd_path p);
/// The path a call with `requested` runs on: `requested` itself, or for
/// `automatic` NUMLAB_SIMD or the best supported path. Throws
/// std::invalid_argument for a bad NUMLAB_SIMD value and std::runtime_error
/// for a path this CPU cannot run.
simd_path resolve_simd_path(simd_path requested);

/// Per-array tallies, gathered in the same pass when asked for.
struct conversion_counts {
  std::uint64_t inexact = 0;            ///< results that differ from their input (inexact flag)
  std::uint64_t underflow_to_zero = 0;  ///< nonzero finite inputs whose result is ±0
  std::uint64_t became_subnormal = 0;   ///< results that are nonzero subnormals of the target
  std::uint64_t overflowed = 0;         ///< elements that raised the overflow flag
  std::uint64_t nan = 0;                ///< results that are NaN

  conversion_counts& operator+=(const conversion_counts& o) {
    inexact += o.inexact;
    underflow_to_zero += o.underflow_to_zero;
    became_subnormal += o.became_subnormal;
    overflowed += o.overflowed;
    nan += o.nan;
    return *this;
  }
  friend constexpr bool operator==(const conversion_counts&, const conversion_counts&) = default;
};

/// What one array call reports.
struct conversion_result {
  flags raised = flags::none;  ///< OR of every element's flags (only with want_counts)
  conversion_counts counts;    ///< only with want_counts; zeros otherwise
  /// Whether some result is a NaN or an infinity (only with
  /// want_non_finite; false otherwise).
  bool non_finite = false;
  simd_path path = simd_path::scalar;  ///< the path that ran
  unsigned threads = 1;  ///< the threads the call ran on (1: the caller's alone)
};

/// Everything that decides how an array is rounded.
struct array_options {
  format target = binary16;  ///< the format rounded into
  round_spec spec{};         ///< mode, stochastic bits r, tininess, overflow behaviour
  std::uint64_t seed = 0;    ///< stochastic rounding: key of the random stream ...
  std::uint64_t stream = 0;  ///< ... and its stream number
  std::uint64_t first_index = 0;  ///< element i takes the draw at position first_index + i
  /// How positions map to random words (philox.hpp): full_word (one
  /// Philox4x32-10 word per element, the default) or half_word (a 16-bit
  /// half-word per element, half the generator's work; spec.random_bits must
  /// be at most 16 under stochastic rounding). Other modes ignore it.
  random_draws draws = random_draws::full_word;
  bool want_counts = false;       ///< gather flags and counts (costs a little)
  /// Report whether any result is NaN or ±inf, found in the rounding pass
  /// itself (a compare and an OR per vector), so a caller hunting the first
  /// non-finite tensor needs no second read of the output.
  bool want_non_finite = false;
  /// Treat subnormal inputs (subnormal in the input's own type, fp32 or
  /// fp64) as zero of the same sign (no flag raised; they still count as
  /// underflow_to_zero).
  bool flush_subnormal_inputs = false;
  /// Replace subnormal results by zero of the same sign, raising underflow
  /// and inexact (the core's result is rounded first, then flushed).
  bool flush_subnormal_outputs = false;
  /// The most threads a call may run on: 1 = the caller's thread only; 0 =
  /// as many as OpenMP offers (OMP_NUM_THREADS, else the hardware threads).
  /// A call takes fewer when its array is short: see parallel_threshold.
  unsigned threads = 1;
  /// The fewest elements worth a thread of their own: a call of n elements
  /// runs on min(threads, n / parallel_threshold) threads, at least one, so
  /// a short array stays on the caller's thread and spawns or wakes nothing.
  /// Unset, the kernel picks it from its measured cost per element against
  /// the measured cost of waking and joining a thread (array_parallel.cpp,
  /// bench/RESULTS.md "Issue 13 (session 7)"). 0 gives every thread asked
  /// for a share of any array (a test's way to force the split).
  std::optional<std::size_t> parallel_threshold{};
  simd_path path = simd_path::automatic;
};

/// in[i] rounded once into options.target, as encodings (options.target must
/// fit the element type: at most 8, 16 or 32 bits). Equals
/// num::from_float(target, in[i], spec, word).bits. Sizes must match.
/// Throws std::invalid_argument for a bad format, r, element width or size,
/// or for stochastic rounding with more random bits than `draws` holds.
conversion_result encode_array(std::span<const float> in, std::span<std::uint8_t> out, const array_options& options);
conversion_result encode_array(std::span<const float> in, std::span<std::uint16_t> out, const array_options& options);
conversion_result encode_array(std::span<const float> in, std::span<std::uint32_t> out, const array_options& options);
/// fp64 inputs rounded once into the target (never through fp32):
/// num::from_double(target, in[i], spec, word).bits.
conversion_result encode_array(std::span<const double> in, std::span<std::uint8_t> out, const array_options& options);
conversion_result encode_array(std::span<const double> in, std::span<std::uint16_t> out, const array_options& options);
conversion_result encode_array(std::span<const double> in, std::span<std::uint32_t> out, const array_options& options);

/// in[i] rounded once into options.target, delivered as the fp32 holding that
/// value: num::to_float(target, num::from_float(target, in[i], spec, word).bits).
/// `out` may be the same array as `in` (not a partial overlap).
conversion_result round_array(std::span<const float> in, std::span<float> out, const array_options& options);
/// The same from fp64 inputs, rounded once (never through fp32).
conversion_result round_array(std::span<const double> in, std::span<float> out, const array_options& options);
/// data[i] replaced by its value rounded into options.target (round_array with out == in).
conversion_result round_array_in_place(std::span<float> data, const array_options& options);

/// Whether any of `values` is a NaN or an infinity (IEEE 754 binary32: the
/// exponent field all ones). One read without branches per element, on the
/// automatic SIMD path (AVX-512, AVX2 or portable; NUMLAB_SIMD and the CPU
/// are read on the first call only); for arrays that are being rounded
/// anyway, array_options::want_non_finite answers the same question without it.
bool any_non_finite(std::span<const float> values);
/// The same on a named path (automatic: as above); throws as
/// resolve_simd_path does where the CPU cannot run it.
bool any_non_finite(std::span<const float> values, simd_path path);

/// How encodings are decoded.
struct decode_options {
  format source = binary16;  ///< the format of the encodings
  bool flush_subnormal_inputs = false;  ///< decode subnormals as zero of the same sign
  unsigned threads = 1;  ///< as array_options::threads
  std::optional<std::size_t> parallel_threshold{};  ///< as array_options::parallel_threshold
  simd_path path = simd_path::automatic;
};

/// The exact fp32 value of each encoding: num::to_float(source, in[i]).
/// Bits above the format's width are ignored. Sizes must match.
simd_path decode_array(std::span<const std::uint8_t> in, std::span<float> out, const decode_options& options);
simd_path decode_array(std::span<const std::uint16_t> in, std::span<float> out, const decode_options& options);
simd_path decode_array(std::span<const std::uint32_t> in, std::span<float> out, const decode_options& options);

}  // namespace num
