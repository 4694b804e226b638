// The AVX2 NVFP4 block kernel: hand-written SIMD is the product here, for
// CPUs without AVX-512, under nvfp4_block_kernel.hpp's contract and bit for
// bit the scalar path's results. Its fast path is the AVX-512 kernel's
// (nvfp4_avx512.cpp, nvfp4_quotient_avx512.hpp): each block's E4M3
// scale S = RNE_E4M3(amax / (6·s)) from one correctly rounded double
// division, then its sixteen elements, two 8-lane vectors, rounded from the
// approximate quotient y = RN32(|x| · RN32(RN64(1/D))) (D = S·s), which
// rounds as the exact quotient does wherever y lies more than 8 fp32
// patterns from every rounding boundary (nvfp4_quotient_avx512.hpp says
// why). A block with a lane nearer than that (about 2^-16 of random lanes,
// every block of data already on its grid, and every block whose amax is
// the tensor's, where |x| / D is 6) is rounded exactly instead: a double
// division and the FMA remainder per element (exact_quotient_avx2.hpp, as
// the fp32-scale kernel; the AVX-512 kernel compares with thresholds). Stochastic
// rounding takes the AVX-512 kernel's exact way (a double division and an
// FMA remainder per element, exact_quotient_avx2.hpp) with the array
// kernels' AVX2 Philox words. The double and fp32 arithmetic takes the
// MXCSR's rounding, which the dispatch has checked is to nearest, without
// FTZ or DAZ (nvfp4_avx2_usable).
#include <cstdint>

#include "kernels/random_word_bits.hpp"
#include "libnum/cpu_features.hpp"
#include "nvfp4_block_kernel.hpp"

namespace num::scaled_detail {

// Outside the AVX2 region (one stmxcsr each).
bool nvfp4_avx2_usable() { return mxcsr_rounds_to_nearest() && !mxcsr_flushes_subnormals(); }

}  // namespace num::scaled_detail

// The AVX2 region opens after every other header (see avx2_region.hpp).
#include "avx2_region.hpp"
#include "exact_quotient_avx2.hpp"
#include "kernels/philox_avx2.hpp"
#include "mode_dispatch.hpp"
#include "nvfp4_group_avx2.hpp"
#include "nvfp4_scale_avx2.hpp"
#include "philox_window.hpp"

namespace num::scaled_detail {
namespace {

using random_window8 = philox_window<kernels::philox_avx2_isa>;

template <rounding Mode>
class nvfp4_blocks8 {
 public:
  static constexpr bool nearest = Mode == rounding::nearest_even || Mode == rounding::nearest_away;
  static constexpr bool stochastic = Mode == rounding::stochastic;

  nvfp4_blocks8(const nvfp4_kernel_setup& k, float* values)
      : values_(values),
        top_bits_(_mm256_set1_epi64x(kernels::random_word_top_bits(k.spec.random_bits))),
        packed_fp4_(k.packed_fp4),
        s_(k.tensor_scale),
        six_s_(6.0 * static_cast<double>(k.tensor_scale)),
        after_rounding_(k.spec.tiny == tininess::after_rounding),
        grid_(2, 0, 7, after_rounding_),
        // A flushed |x| counts as block underflow iff |x| > 6·s·2^-10 (its
        // own block's scale would not be zero, see scaled_quantize.cpp).
        own_nonzero_minus_one_(opaque8(splat8(above_pattern(six_s_ * 0x1p-10) - 1))),
        inexact_(_mm256_setzero_si256()),
        saturated_(_mm256_setzero_si256()),
        flushed_(_mm256_setzero_si256()),
        block_flushed_(_mm256_setzero_si256()) {}

  // One block of `count` elements (a row's partial last block where fewer
  // than 16; the lanes past it read as zeros, which change neither the amax
  // nor any count); false (nothing written, nothing counted) when it needs
  // the scalar path. With values set, the block's dequantized values go to
  // `values` instead of its codes to `codes`. `words`: the block's random
  // words (stochastic rounding only).
  NUMLAB_INLINE bool block(const float* in, const std::uint32_t* words, std::uint8_t* codes, float* values,
                           std::uint32_t& scale, std::size_t count) {
    __m256i x[2], a[2];
    load(in, count, x, a);
    const block_plan plan = plan_of(amax_of(a));
    if (plan.left) return false;
    quantize(x, a, plan, words, codes, values, scale, count);
    elements_ += count;
    ++blocks_;
    if (plan.s.overflowed) ++scale_overflow_;
    return true;
  }

  // Up to 16 whole blocks (`count`, from `in`): first every block's amax
  // and scale, then their elements, so that one block's two double
  // divisions and the trips through general registers need not wait on
  // the previous block (the chain of latencies the MX kernel's groups
  // break too). The blocks left to the scalar path go to `left`, numbered
  // from `first`.
  // `words`: the blocks' random words (stochastic rounding only).
  NUMLAB_INLINE void group(const float* in, const std::uint32_t* words, std::size_t count, std::uint8_t* codes,
                           float* values, std::uint32_t* scales, std::size_t first, left_blocks& left) {
    const std::size_t block_bytes = packed_fp4_ ? 8 : 16;
    alignas(32) std::uint32_t amax[16];
    std::size_t j = 0;
    for (; j + 8 <= count; j += 8) nvfp4_amax8(in + 16 * j, k_.magnitude, amax + j);
    for (; j < count; ++j) {
      __m256i x[2], a[2];
      load(in + 16 * j, 16, x, a);
      amax[j] = amax_of(a);
    }
    for (j = count; j % 4 != 0; ++j) amax[j] = 0;  // plans4 reads whole fours
    nvfp4_group_plans plans;
    for (j = 0; j < count; j += 4) nvfp4_plans4<stochastic>(amax + j, six_s_, s_, plans, j);
    // The blocks quantized here, counted once for the group (as members,
    // per block, their counts were a load and a store each).
    std::uint32_t done = 0;
    for (j = 0; j < count; ++j) {
      __m256i x[2], a[2];
      load(in + 16 * j, 16, x, a);
      block_plan plan;
      plan.s = {plans.code[j], plans.value[j], (plans.overflowed >> j & 1u) != 0};
      plan.d = plans.d[j];
      plan.reciprocal = plans.reciprocal[j];
      if ((plans.left >> j & 1u) != 0) {
        left.add(first + j);
        continue;
      }
      quantize(x, a, plan, words == nullptr ? nullptr : words + 16 * j, codes + block_bytes * j,
               values == nullptr ? nullptr : values + 16 * j, scales[j], 16);
      done |= 1u << j;
    }
    const auto quantized = static_cast<std::uint64_t>(__builtin_popcount(done));
    blocks_ += quantized;
    elements_ += 16 * quantized;
    scale_overflow_ += static_cast<std::uint64_t>(__builtin_popcount(done & plans.overflowed));
  }

  // A 2-D block's rows (nvfp4_tile, its scale already found: D nonzero),
  // each rounded as block() rounds a block's elements and counted as a block
  // of the kernel's own (run_tile counts the block itself); false, with
  // nothing written or counted, where 1/D is not a normal fp32 (stochastic
  // rounding: never).
  NUMLAB_INLINE bool tile(const nvfp4_kernel_setup& k, const nvfp4_tile& t) {
    block_plan plan{};
    plan.d = t.d;
    plan.reciprocal = static_cast<float>(1.0 / t.d);
    if (!stochastic && __builtin_bit_cast(std::uint32_t, plan.reciprocal) - 0x00800000u >= 0x7F000000u) return false;
    const std::size_t code_stride = packed_fp4_ ? t.stride / 2 : t.stride;
    for (std::size_t r = 0; r < t.rows; ++r) {
      __m256i x[2], a[2];
      load(t.in + r * t.stride, t.cols, x, a);
      std::uint32_t scale = 0;  // the caller's
      const std::uint64_t first_word = t.first_word + r * t.stride;
      if constexpr (stochastic) {
        random_window8 random(k.seed, k.stream, first_word);
        quantize(x, a, plan, random.at(first_word), t.codes + r * code_stride, nullptr, scale, t.cols);
      } else {
        quantize(x, a, plan, nullptr, t.codes + r * code_stride, nullptr, scale, t.cols);
      }
      elements_ += t.cols;
      ++blocks_;
    }
    return true;
  }

  void add_to(scaled_result& result) const {
    scaled_counts& c = result.counts;
    const std::uint64_t inexact = total(inexact_), saturated = total(saturated_), flushed = total(flushed_),
                        block_underflow = total(block_flushed_);
    c.elements += elements_;
    c.blocks += blocks_;
    c.inexact += inexact;
    c.saturated += saturated;
    c.block_underflow += block_underflow;
    c.underflow_to_zero += flushed - block_underflow;
    c.scale_overflow += scale_overflow_;
    c.scale_underflow += scale_underflow_;
    if (inexact != 0) result.raised |= flags::inexact;
    if (saturated != 0) result.raised |= flags::overflow;
    if (underflow_) result.raised |= flags::underflow;
  }

 private:
  // A block's scale, its decode scale D = S·s (0 where S is zero) and,
  // where that is not zero, RN32(RN64(1 / D)); `left` where the scalar path
  // takes the block (NaN/inf, or a reciprocal outside fp32's normal range,
  // which the error bound needs).
  struct block_plan {
    e4m3_scale s;
    double d;
    float reciprocal;
    bool left;
  };

  NUMLAB_INLINE block_plan plan_of(std::uint32_t amax_bits) const {
    block_plan p{};
    if (amax_bits >= 0x7F800000u) {
      p.left = true;
      return p;
    }
    if (amax_bits == 0) return p;
    p.s = e4m3_scale_of(static_cast<double>(__builtin_bit_cast(float, amax_bits)), six_s_);
    if (p.s.value != 0) {
      p.d = p.s.value * static_cast<double>(s_);  // exact: 4 x 24 bits
      p.reciprocal = static_cast<float>(1.0 / p.d);
      p.left = !stochastic && __builtin_bit_cast(std::uint32_t, p.reciprocal) - 0x00800000u >= 0x7F000000u;
    }
    return p;
  }

  // A block's 16 lanes: x (fp32 patterns) and a = |x|, the lanes past
  // `count` read as zeros.
  NUMLAB_INLINE void load(const float* in, std::size_t count, __m256i* x, __m256i* a) const {
    const auto present = static_cast<std::uint32_t>((1u << count) - 1);
    for (int i = 0; i < 2; ++i) {
      const auto* p = reinterpret_cast<const int*>(in + 8 * i);
      x[i] = count == 16 ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))
                         : _mm256_maskload_epi32(p, lanes_of_bits(present >> (8 * i)));
      a[i] = _mm256_and_si256(x[i], k_.magnitude);
    }
  }

  // The block's amax pattern (magnitudes order as their patterns, below 2^31).
  static NUMLAB_INLINE std::uint32_t amax_of(const __m256i* a) {
    __m256i amax = _mm256_max_epi32(a[0], a[1]);
    amax = _mm256_max_epi32(amax, _mm256_permute2x128_si256(amax, amax, 0x01));
    amax = _mm256_max_epi32(amax, _mm256_shuffle_epi32(amax, 0x4E));
    amax = _mm256_max_epi32(amax, _mm256_shuffle_epi32(amax, 0xB1));
    return static_cast<std::uint32_t>(_mm256_cvtsi256_si32(amax));
  }

  // The block's elements under its plan (not left). The caller counts the
  // block, its elements and a scale that overflowed.
  NUMLAB_INLINE void quantize(const __m256i* x, const __m256i* a, const block_plan& plan, const std::uint32_t* words,
                              std::uint8_t* codes, float* values, std::uint32_t& scale, std::size_t count) {
    __m256i code[2], inexact[2], saturated[2];
    if (plan.d == 0) {
      // A zero scale (all elements zero, or E4M3 underflow) decodes every
      // element to zero: each keeps its sign, each nonzero one is inexact
      // and underflows.
      bool any_nonzero = false;
      for (int i = 0; i < 2; ++i) {
        code[i] = saturated[i] = _mm256_setzero_si256();
        inexact[i] = nonzero(a[i]);
        any_nonzero = any_nonzero || !_mm256_testz_si256(inexact[i], inexact[i]);
      }
      if (any_nonzero) {
        underflow_ = true;
        ++scale_underflow_;  // amax is nonzero: its scale rounded to zero
      }
    } else if constexpr (stochastic) {
      exact_codes(x, a, plan.d, words, code, inexact, saturated);
    } else {
      // Both vectors' quotients checked at once, then their codes; a block
      // with a lane near a boundary takes the exact way.
      const __m256 reciprocal = _mm256_set1_ps(plan.reciprocal);
      const __m256i y[2] = {quotient(a[0], reciprocal), quotient(a[1], reciprocal)};
      const __m256i near = _mm256_or_si256(near_boundary(y[0]), near_boundary(y[1]));
      if (!_mm256_testz_si256(near, near)) {
        exact_codes(x, a, plan.d, nullptr, code, inexact, saturated);
      } else {
        for (int i = 0; i < 2; ++i) {
          codes_of(x[i], a[i], y[i], code[i], saturated[i]);
          inexact[i] = nonzero(a[i]);  // saturated lanes among them
        }
        if (!underflow_) {
          for (int i = 0; i < 2; ++i) underflow_ = underflow_ || any_tiny(x[i], y[i], inexact[i]);
        }
      }
    }
    scale = plan.s.code;
    tally(x, a, code, inexact, saturated, codes, values, static_cast<float>(plan.s.value), count);
  }

  // The E2M1 magnitude codes of the block's sixteen |x| rounded exactly
  // from |x| / D (a double division and the FMA remainder per element,
  // exact_quotient_avx2.hpp): under stochastic rounding (with the block's
  // random `words`), and for a block whose y lies near a boundary in some
  // lane; its inexact (saturated included) and saturated lanes; raises the
  // underflow flag where a lane is tiny.
  NUMLAB_INLINE void exact_codes(const __m256i* x, const __m256i* a, double d, const std::uint32_t* words,
                                 __m256i* code, __m256i* inexact, __m256i* saturated) {
    const __m256d dv = _mm256_set1_pd(d);
    for (int i = 0; i < 2; ++i) {
      rounded_quotients4 quarter[2];
      for (int q = 0; q < 2; ++q) {
        const __m128i a_quarter = q == 0 ? _mm256_castsi256_si128(a[i]) : _mm256_extracti128_si256(a[i], 1);
        const __m128i x_quarter = q == 0 ? _mm256_castsi256_si128(x[i]) : _mm256_extracti128_si256(x[i], 1);
        const __m256i negative = _mm256_cmpgt_epi64(_mm256_setzero_si256(), _mm256_cvtepi32_epi64(x_quarter));
        random_bits4 random{};
        if constexpr (stochastic) {
          const __m256i word =
              _mm256_cvtepu32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(words + 8 * i + 4 * q)));
          random = {_mm256_and_si256(word, top_bits_)};
        }
        quarter[q] = round_quotients4<Mode>(_mm256_cvtps_pd(_mm_castsi128_ps(a_quarter)), negative, dv, grid_,
                                            !underflow_, &random);
        if (quarter[q].tiny) underflow_ = true;
      }
      code[i] = join_quarters(quarter[0].code, quarter[1].code);
      inexact[i] = join_quarters(_mm256_or_si256(quarter[0].inexact, quarter[0].saturated),
                                 _mm256_or_si256(quarter[1].inexact, quarter[1].saturated));
      saturated[i] = join_quarters(quarter[0].saturated, quarter[1].saturated);
    }
  }

  static NUMLAB_INLINE __m256i nonzero(__m256i a) {
    return _mm256_xor_si256(_mm256_cmpeq_epi32(a, _mm256_setzero_si256()), _mm256_set1_epi32(-1));
  }

  // y = RN32(|x| · reciprocal) of eight |x|, capped at 15 (everything from
  // 8 up saturates; 15 is near no boundary), as
  // nvfp4_quotient_rounding::codes (its comment says why y decides).
  NUMLAB_INLINE __m256i quotient(__m256i a, __m256 reciprocal) const {
    return _mm256_min_epi32(_mm256_castps_si256(_mm256_mul_ps(_mm256_castsi256_ps(a), reciprocal)), k_.cap);
  }

  // The lanes whose y lies near a rounding boundary: y >= 0.125 (every
  // boundary is >= 0.25) and within 8 patterns of a multiple of 2^21 (a
  // pattern with 3 significant bits).
  NUMLAB_INLINE __m256i near_boundary(__m256i y) const {
    const __m256i large = _mm256_cmpgt_epi32(y, k_.large);
    const __m256i off_grid = _mm256_and_si256(_mm256_add_epi32(y, k_.eight), k_.grid);
    return _mm256_and_si256(large, _mm256_cmpeq_epi32(off_grid, _mm256_setzero_si256()));
  }

  // The E2M1 magnitude codes (0..7) of eight |x| from their y (near no
  // boundary), and the saturated lanes. Every nonzero lane is inexact.
  NUMLAB_INLINE void codes_of(__m256i x, __m256i a, __m256i y, __m256i& code, __m256i& saturated) const {
    // E2M1's quantum at y is 2^(max(e, 0) - 1): code = y's quanta
    // (floor(y / quantum) or the nearest) + 2·max(e, 0) (E2M1: p = 2, 1 =
    // 2^emin; quantum_field >> 22 = 2·max(E, 127)), a carry landing on the
    // next binade.
    const __m256i quantum_field = _mm256_and_si256(_mm256_max_epi32(y, k_.one), k_.exponent);
    const __m256i binades = _mm256_sub_epi32(_mm256_srli_epi32(quantum_field, 22), k_.two_biases);
    __m256i kept;
    if constexpr (nearest) {
      // Adding C = 2^(22 + max(e, 0)), whose ulp is the quantum, rounds y
      // to nearest at it (no lane lies on a tie).
      const __m256i c = _mm256_add_epi32(quantum_field, k_.exponent_22);
      const __m256 sum = _mm256_add_ps(_mm256_castsi256_ps(y), _mm256_castsi256_ps(c));
      kept = _mm256_sub_epi32(_mm256_castps_si256(sum), c);
    } else {
      // Truncated: the significand cut at the quantum, 22 bits in the
      // normal range, one more per binade below 1 (y = 0 keeps nothing).
      const __m256i m = _mm256_or_si256(_mm256_and_si256(y, splat8(0x7FFFFF)), splat8(0x800000));
      const __m256i cut = _mm256_max_epi32(splat8(22), _mm256_sub_epi32(splat8(149), _mm256_srli_epi32(y, 23)));
      kept = _mm256_srlv_epi32(m, cut);
    }
    code = _mm256_add_epi32(kept, binades);
    // Every nonzero lane is inexact here: the directed modes round the
    // truncated magnitude up where the sign says so, to-odd makes it odd.
    const __m256i up = nonzero(a);
    if constexpr (Mode == rounding::toward_positive) {
      code = _mm256_sub_epi32(code, _mm256_andnot_si256(_mm256_srai_epi32(x, 31), up));
    } else if constexpr (Mode == rounding::toward_negative) {
      code = _mm256_sub_epi32(code, _mm256_and_si256(_mm256_srai_epi32(x, 31), up));
    } else if constexpr (Mode == rounding::to_odd) {
      code = _mm256_or_si256(code, _mm256_and_si256(up, splat8(1)));
    }
    saturated = _mm256_cmpgt_epi32(code, k_.seven);
    code = _mm256_min_epi32(code, k_.seven);
  }

  // Whether an inexact lane is tiny: y below 1 (before rounding), or below
  // the point from which rounding with an unbounded exponent carries to 1 =
  // 2^emin (after rounding: 0.875 to nearest, 0.75 where a directed mode
  // rounds the magnitude up); y lies on none of them.
  NUMLAB_INLINE bool any_tiny(__m256i x, __m256i y, __m256i inexact) const {
    __m256i limit = splat8(0x3F800000);
    if (after_rounding_) {
      if constexpr (nearest) {
        limit = splat8(0x3F600000);
      } else if constexpr (Mode == rounding::toward_positive || Mode == rounding::toward_negative) {
        const __m256i negative = _mm256_srai_epi32(x, 31);
        const __m256i up =
            Mode == rounding::toward_positive ? _mm256_xor_si256(negative, _mm256_set1_epi32(-1)) : negative;
        limit = _mm256_blendv_epi8(limit, splat8(0x3F400000), up);
      }
    }
    const __m256i tiny = _mm256_and_si256(inexact, _mm256_cmpgt_epi32(limit, y));
    return !_mm256_testz_si256(tiny, tiny);
  }

  // Stores a block's codes (magnitude codes in 32-bit lanes) with their
  // signs, or its values, and counts what its elements did.
  NUMLAB_INLINE void tally(const __m256i* x, const __m256i* a, const __m256i* code, const __m256i* inexact,
                           const __m256i* saturated, std::uint8_t* codes, float* values, float block_scale,
                           std::size_t count) {
    __m256i signed_code[2];
    for (int i = 0; i < 2; ++i) {
      const __m256i flushed = _mm256_and_si256(nonzero(a[i]), _mm256_cmpeq_epi32(code[i], _mm256_setzero_si256()));
      const __m256i block_flushed = _mm256_and_si256(flushed, _mm256_cmpgt_epi32(a[i], own_nonzero_minus_one_));
      // An all-ones lane is -1: subtracting it counts one.
      inexact_ = _mm256_sub_epi32(inexact_, inexact[i]);
      saturated_ = _mm256_sub_epi32(saturated_, saturated[i]);
      flushed_ = _mm256_sub_epi32(flushed_, flushed);
      block_flushed_ = _mm256_sub_epi32(block_flushed_, block_flushed);
      signed_code[i] = _mm256_or_si256(code[i], _mm256_and_si256(_mm256_srli_epi32(x[i], 28), k_.eight));
    }
    if (values != nullptr) {
      // dequantize()'s two fp32 products: value × S (exact), then × s.
      const __m256 table = _mm256_setr_ps(0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f);
      // A partial block's values go through a buffer (masked stores are
      // slow on Zen 3); a whole block's straight out.
      alignas(32) float buffer[16];
      float* out = count == 16 ? values : buffer;
      for (int i = 0; i < 2; ++i) {
        const __m256 magnitude = _mm256_permutevar8x32_ps(table, code[i]);
        const __m256 value = _mm256_castsi256_ps(
            _mm256_or_si256(_mm256_castps_si256(magnitude), _mm256_and_si256(x[i], splat8(0x80000000u))));
        _mm256_storeu_ps(out + 8 * i,
                         _mm256_mul_ps(_mm256_mul_ps(value, _mm256_set1_ps(block_scale)), _mm256_set1_ps(s_)));
      }
      if (count != 16) __builtin_memcpy(values, buffer, count * sizeof(float));
      return;
    }
    const __m256i zero = _mm256_setzero_si256();
    const __m128i bytes = _mm256_castsi256_si128(code_bytes32(signed_code[0], signed_code[1], zero, zero, packed_fp4_));
    if (count == 16) {
      if (packed_fp4_) {
        _mm_storel_epi64(reinterpret_cast<__m128i*>(codes), bytes);
      } else {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(codes), bytes);
      }
      return;
    }
    alignas(16) std::uint8_t buffer[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(buffer), bytes);
    __builtin_memcpy(codes, buffer, packed_fp4_ ? count / 2 : count);
  }

  // The quotient rounding's constants, kept in the object: GCC 12 built
  // each from an immediate (a move and a broadcast) in every block, a fifth
  // of the per-block loop's 174 instructions (callgrind); opaque8 keeps them
  // loads (avx2_region.hpp).
  struct lane_constants {
    __m256i magnitude, cap, large, eight, grid, one, exponent, two_biases, exponent_22, seven;
    NUMLAB_INLINE lane_constants()
        : magnitude(opaque8(splat8(0x7FFFFFFF))),
          cap(opaque8(splat8(0x41700000))),         // 15.0
          large(opaque8(splat8(0x3E000000 - 1))),  // below 0.125
          eight(opaque8(splat8(8))),
          grid(opaque8(splat8(0x1FFFF0))),
          one(opaque8(splat8(0x3F800000))),
          exponent(opaque8(splat8(0x7F800000))),
          two_biases(opaque8(splat8(2 * 127))),
          exponent_22(opaque8(splat8(22u << 23))),
          seven(opaque8(splat8(7))) {}
  };

  // The sum of a vector of per-lane counters.
  static NUMLAB_INLINE std::uint64_t total(__m256i counts) {
    alignas(32) std::uint32_t lanes[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), counts);
    std::uint64_t sum = 0;
    for (std::uint32_t lane : lanes) sum += lane;
    return sum;
  }

  float* const values_;
  const __m256i top_bits_;  // the random bits that count, in 64-bit lanes
  const bool packed_fp4_;
  const float s_;
  const double six_s_;
  const bool after_rounding_;
  const lane_constants k_;
  const element_grid4 grid_;  // E2M1: 2 bits, emin 0, largest code 7 (6.0)
  // The pattern of the smallest |x| whose own block's scale is not zero,
  // less one: a > it iff a reaches it (patterns below 2^31).
  const __m256i own_nonzero_minus_one_;
  // Per-lane counts (a lane counts at most two per block: 32 bits last for
  // 2^31 blocks in one run).
  __m256i inexact_, saturated_, flushed_, block_flushed_;
  std::uint64_t blocks_ = 0, elements_ = 0, scale_underflow_ = 0, scale_overflow_ = 0;
  bool underflow_ = false;
};

template <rounding Mode>
void run_blocks(const nvfp4_kernel_setup& k, const nvfp4_run& run, scaled_result& result, left_blocks& left) {
  nvfp4_blocks8<Mode> kernel(k, run.values);
  const std::size_t block_bytes = k.packed_fp4 ? 8 : 16;
  // Locals, so the compiler need not reload them after each store.
  const float* in = run.in;
  std::uint8_t* codes = run.codes;
  std::uint32_t* scales = run.scales;
  float* values = run.values;
  const std::size_t blocks = run.blocks;
  auto blocks_with = [&](auto group_words, auto tail_words) {
    for (std::size_t g = 0; g < blocks; g += 16) {
      const std::size_t count = blocks - g < 16 ? blocks - g : 16;
      kernel.group(in + 16 * g, group_words(g, count), count, codes + block_bytes * g,
                   values == nullptr ? nullptr : values + 16 * g, scales + g, g, left);
    }
    if (run.tail != 0 && !kernel.block(in + 16 * blocks, tail_words(), codes + block_bytes * blocks,
                                       values == nullptr ? nullptr : values + 16 * blocks, scales[blocks], run.tail)) {
      left.add(blocks);
    }
  };
  if constexpr (Mode == rounding::stochastic) {
    // A group's words in one go, before its blocks (as the MX kernels).
    random_window8 random(k.seed, k.stream, run.first_word);
    static_assert(random_window8::max_cover >= 16 * 16);
    blocks_with([&](std::size_t g, std::size_t count) { return random.cover(run.first_word + 16 * g, 16 * count); },
                [&] { return random.at(run.first_word + 16 * blocks); });
  } else {
    blocks_with([](std::size_t, std::size_t) -> const std::uint32_t* { return nullptr; },
                []() -> const std::uint32_t* { return nullptr; });
  }
  kernel.add_to(result);
}

// One 2-D block through tile(); its elements' counts and flags (not the
// rows as blocks: the block is the caller's to count) go to `result`.
template <rounding Mode>
bool run_tile(const nvfp4_kernel_setup& k, const nvfp4_tile& tile, scaled_result& result) {
  nvfp4_blocks8<Mode> kernel(k, nullptr);
  if (!kernel.tile(k, tile)) return false;
  scaled_result rows;
  kernel.add_to(rows);
  scaled_counts& c = result.counts;
  c.elements += rows.counts.elements;
  c.inexact += rows.counts.inexact;
  c.saturated += rows.counts.saturated;
  c.block_underflow += rows.counts.block_underflow;
  c.underflow_to_zero += rows.counts.underflow_to_zero;
  result.raised |= rows.raised;
  return true;
}

}  // namespace

bool nvfp4_tile_avx2(const nvfp4_kernel_setup& k, const nvfp4_tile& tile, scaled_result& result) {
  return with_mode(k.spec.mode, [&](auto mode) { return run_tile<mode.value>(k, tile, result); });
}

void nvfp4_blocks_avx2(const nvfp4_kernel_setup& k, const nvfp4_run& run, scaled_result& result, left_blocks& left) {
  with_mode(k.spec.mode, [&](auto mode) { run_blocks<mode.value>(k, run, result, left); });
}

}  // namespace num::scaled_detail

#ifndef __clang__
#pragma GCC pop_options
#endif
