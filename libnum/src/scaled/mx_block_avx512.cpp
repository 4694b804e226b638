// The AVX-512 MX block kernel: 32 fp32 values as two 16-lane vectors. Each
// lane rounds its 24-bit significand m at the element's quantum with the
// same decisions as round_exact (libnum/src/core/round_exact.cpp): the bits
// shifted out decide, and a carry out of the kept part lands on the next
// exponent's code. The rounding mode is a template parameter, so each mode's
// loop holds only its own arithmetic; counts are popcounts of lane masks.
// The underflow flag is worked out only until it is raised
// (mx_underflow_avx512.hpp). Rows of at most 16 elements (the trainer's
// k = 9 GEMM operands) go several to a pass, each row its own block under
// its own scale, instead of filling a few lanes of one pass each.
#include <cstdint>

#include "mx_block_kernel.hpp"

// The AVX-512 region opens after every other header (see avx512_region.hpp).
#include "avx512_region.hpp"
#include "element_fields_avx512.hpp"
#include "mx_underflow_avx512.hpp"
#include "random_window.hpp"

namespace num::scaled_detail {
namespace {

// --- The block loop, one instantiation per rounding mode ---

template <rounding Mode>
class mx_blocks {
 public:
  // Every constant of the loop is a member here, not read through `k`, so
  // the byte stores cannot make the compiler reload it.
  explicit mx_blocks(const mx_kernel_setup& k)
      : k_(k),
        small_below_(splat((static_cast<std::uint32_t>(k.emax > 1 ? k.emax : 1) << 23) - 1)),
        normal_shift_minus_one_(splat(static_cast<std::uint32_t>(23 - k.precision))),
        max_code_(splat(k.max_code)),
        top_bits_(splat(k.spec.random_bits >= 32 ? 0xFFFFFFFFu : ~((1u << (32 - k.spec.random_bits)) - 1))),
        precision_shift_(_mm_cvtsi32_si128(k.precision - 1)),
        sign_shift_(_mm_cvtsi32_si128(32 - k.element_bits)),
        sign_bit_(splat(1u << (k.element_bits - 1))),
        emin_minus_emax_(splat(static_cast<std::uint32_t>(k.emin - k.emax))),
        // INT8 divides by X and multiplies by 2^6 (its implicit scale).
        scale_bits_offset_(splat(static_cast<std::uint32_t>(127 + k.emax + (k.int8 ? 6 : 0)) << 23)),
        emin_bits_(splat(static_cast<std::uint32_t>(127 + k.emin) << 23)),
        c_offset_(splat(static_cast<std::uint32_t>(24 - k.precision) << 23)),
        normal_shift_count_(_mm_cvtsi32_si128(24 - k.precision)),
        c_field_offset_(splat(static_cast<std::uint32_t>(127 + k.emin + 24 - k.precision) << (k.precision - 1))),
        emax_(k.emax),
        rule_(k.rule),
        max_fraction_(k.max_fraction),
        even_half_(1u << (23 - k.precision)),
        packed_fp4_(k.packed_fp4),
        int8_(k.int8),
        int8_negative_limit_(splat(k.int8_symmetric ? 127 : 128)),
        fields_(k.element_bits, k.precision - 1, k.bias) {}

  // One block; false (nothing written) when it needs the scalar path. A
  // partial block (a row's last, `count` < 32 elements) reads and writes
  // only its own elements: the lanes past it hold zeros, which change
  // neither the amax nor any count.
  // With `values` set, the block's dequantized values go there instead of
  // its codes.
  template <bool Partial = false>
  NUMLAB_INLINE bool block(const float* in, const std::uint32_t* words, std::uint8_t* codes, std::uint32_t& scale,
                           float* values, std::size_t count = 32) {
    const __mmask32 present = Partial ? static_cast<__mmask32>((std::uint64_t{1} << count) - 1) : ~__mmask32{0};
    const input in_lanes = load<Partial>(in, words, present);
    // The block amax in every lane (a butterfly of maxima).
    __m512i amax = _mm512_max_epu32(in_lanes.a0, in_lanes.a1);
    amax = _mm512_max_epu32(amax, _mm512_shuffle_i32x4(amax, amax, 0x4E));
    amax = _mm512_max_epu32(amax, _mm512_shuffle_i32x4(amax, amax, 0xB1));
    amax = _mm512_max_epu32(amax, _mm512_shuffle_epi32(amax, _MM_PERM_BADC));
    amax = _mm512_max_epu32(amax, _mm512_shuffle_epi32(amax, _MM_PERM_CDAB));
    const auto amax_bits = static_cast<std::uint32_t>(_mm_cvtsi128_si32(_mm512_castsi512_si128(amax)));
    if (in_lanes.small != 0 || amax_bits >= 0x7F800000u) return false;
    // MX §6.3: X = 2^(floor(log2 amax) - emax_elem), as a biased fp32
    // exponent field: E_X = E_amax - emax. The element's 2^emin sits at
    // field E_X + emin; an all-zero block gets X = 2^-127 (code 0). RCEIL
    // takes one binade more where amax exceeds max_elem · 2^(E_X - 127)
    // (max_elem's fraction under amax's exponent), EVEN where amax rounded
    // (ties away) to p bits carries into the next binade.
    int up = 0;
    if (rule_ == scale_rule::mx_rceil) {
      up = amax_bits > ((amax_bits & 0x7F800000u) | max_fraction_) ? 1 : 0;
    } else if (rule_ == scale_rule::mx_even) {
      up = static_cast<int>(((amax_bits + even_half_) >> 23) - (amax_bits >> 23));
    }
    block_scale s{_mm512_and_si512(amax, splat(0x7F800000)),
                  _mm512_add_epi32(_mm512_srli_epi32(amax, 23), emin_minus_emax_), _mm512_setzero_si512(),
                  _mm512_setzero_si512()};
    if (rule_ != scale_rule::mx_floor) {
      const __m512i binades_up = splat(static_cast<std::uint32_t>(up));
      s.exponent_bits = _mm512_add_epi32(s.exponent_bits, _mm512_slli_epi32(binades_up, 23));
      s.emin_field = _mm512_add_epi32(s.emin_field, binades_up);
    }
    const int scale_field = static_cast<int>(amax_bits >> 23) + up - emax_;
    // Above E8M0's largest finite scale (INT8's emax 0 rounded up one
    // binade from fp32's top): the scalar path clamps and counts it.
    if (scale_field > 254) return false;
    scale = static_cast<std::uint32_t>(scale_field < 0 ? 0 : scale_field);
    s.x_bits = splat(scale == 0 ? 0x00400000u : scale << 23);
    emit<Partial>(in_lanes, s, s, present, codes, values);
    ++blocks_;
    return true;
  }

  // `rows` (at most group_rows()) rows of `cols` elements each, stored one
  // after another, in one pass of the 32 lanes: each row is its own block,
  // with its own scale (a segmented amax: a prefix maximum within each row,
  // then every lane takes its row's last). Returns the rows left to the
  // scalar path (bit r for row r), of which nothing is written.
  // `readable`: the input goes on for 32 elements from `in`.
  NUMLAB_INLINE std::uint32_t short_rows(const float* in, const std::uint32_t* words, std::uint8_t* codes,
                                         std::uint32_t* scales, float* values, std::size_t rows, bool readable) {
    const std::size_t used = rows * cols_;
    const auto present = static_cast<__mmask32>((std::uint64_t{1} << used) - 1);
    const input in_lanes = load<true>(in, words, present, readable);
    __m512i m0 = in_lanes.a0, m1 = in_lanes.a1;
    for (int step = 0; step < prefix_steps_; ++step) {
      const __m512i p0 = _mm512_permutex2var_epi32(m0, prefix_from_[step][0], m1);
      const __m512i p1 = _mm512_permutex2var_epi32(m0, prefix_from_[step][1], m1);
      m0 = _mm512_mask_max_epu32(m0, prefix_takes_[step][0], m0, p0);
      m1 = _mm512_mask_max_epu32(m1, prefix_takes_[step][1], m1, p1);
    }
    const __m512i amax0 = _mm512_permutex2var_epi32(m0, row_last_[0], m1);
    const __m512i amax1 = _mm512_permutex2var_epi32(m0, row_last_[1], m1);
    block_scale s0 = lane_scale(amax0), s1 = lane_scale(amax1);
    // A row is left to the scalar path for what block() leaves a block for.
    const __mmask32 declined =
        present & (in_lanes.small | join(_mm512_cmpge_epu32_mask(amax0, splat(0x7F800000)) |
                                             _mm512_cmpgt_epi32_mask(s0.code, splat(254)),
                                         _mm512_cmpge_epu32_mask(amax1, splat(0x7F800000)) |
                                             _mm512_cmpgt_epi32_mask(s1.code, splat(254))));
    __mmask32 done = present;
    std::uint32_t left = 0;
    if (declined != 0) {
      const std::uint64_t row_lanes = (std::uint64_t{1} << cols_) - 1;
      for (std::size_t r = 0; r < rows; ++r) {
        const auto lanes_of_row = static_cast<__mmask32>(row_lanes << (r * cols_));
        if ((declined & lanes_of_row) != 0) {
          left |= 1u << r;
          done &= static_cast<__mmask32>(~lanes_of_row);
        }
      }
    }
    s0.code = _mm512_max_epi32(s0.code, _mm512_setzero_si512());
    s1.code = _mm512_max_epi32(s1.code, _mm512_setzero_si512());
    if (values != nullptr) {
      const __m512i subnormal = splat(0x00400000u);
      s0.x_bits = _mm512_mask_mov_epi32(_mm512_slli_epi32(s0.code, 23), _mm512_testn_epi32_mask(s0.code, s0.code),
                                        subnormal);
      s1.x_bits = _mm512_mask_mov_epi32(_mm512_slli_epi32(s1.code, 23), _mm512_testn_epi32_mask(s1.code, s1.code),
                                        subnormal);
    }
    // Each row's scale from its first lane.
    alignas(64) std::uint32_t lane_codes[32];
    _mm512_store_si512(lane_codes, s0.code);
    _mm512_store_si512(lane_codes + 16, s1.code);
    for (std::size_t r = 0; r < rows; ++r) {
      if ((left >> r & 1u) == 0) scales[r] = lane_codes[r * cols_];
    }
    emit<true>(in_lanes, s0, s1, done, codes, values);
    blocks_ += rows - static_cast<std::size_t>(__builtin_popcount(left));
    return left;
  }

  // Rows of `cols` <= 16 elements go group_rows() to a pass.
  void use_short_rows(std::size_t cols) {
    cols_ = cols;
    const std::size_t group = 32 / cols;
    alignas(64) std::uint32_t from[2][16], last[2][16];
    prefix_steps_ = 0;
    for (std::size_t d = 1; d < cols; d *= 2, ++prefix_steps_) {
      __mmask32 takes = 0;
      for (std::size_t j = 0; j < 32; ++j) {
        const bool in_row = j < group * cols && j % cols >= d;
        from[j / 16][j % 16] = static_cast<std::uint32_t>(in_row ? j - d : j);
        if (in_row) takes |= static_cast<__mmask32>(1u << j);
      }
      for (int h = 0; h < 2; ++h) {
        prefix_from_[prefix_steps_][h] = _mm512_load_si512(from[h]);
        prefix_takes_[prefix_steps_][h] = static_cast<__mmask16>(takes >> (16 * h));
      }
    }
    for (std::size_t j = 0; j < 32; ++j) {
      const bool in_row = j < group * cols;
      last[j / 16][j % 16] = static_cast<std::uint32_t>(in_row ? j - j % cols + cols - 1 : j);
    }
    row_last_[0] = _mm512_load_si512(last[0]);
    row_last_[1] = _mm512_load_si512(last[1]);
  }

  // Rows of group_rows() or fewer go to one short_rows() pass.
  std::size_t group_rows() const { return 32 / cols_; }

  void add_to(scaled_result& result) const {
    scaled_counts& c = result.counts;
    c.elements += elements_;
    c.blocks += blocks_;
    c.inexact += inexact_;
    c.saturated += saturated_;
    c.block_underflow += flushed_;
    if (inexact_ != 0) result.raised |= flags::inexact;
    if (saturated_ != 0) result.raised |= flags::overflow;
    if (underflow_) result.raised |= flags::underflow;
  }

 private:
  struct lanes {
    __m512i code;
    __mmask16 inexact, overflow, flushed;
  };

  // A block's 32 lanes as two vectors: x (fp32 patterns), a = |x|, the
  // random words (stochastic rounding only), and the nonzero lanes below
  // 2^(emax - 127) (fp32 subnormals included), which the scalar path takes.
  struct input {
    __m512i x0, x1, a0, a1, w0, w1;
    __mmask32 small;
  };
  // One vector's worth of block scale, lane by lane: X's biased fp32
  // exponent field (shifted into place), the fp32 exponent field of the
  // element's 2^emin under X, the E8M0 code (before clamping at 0), and X
  // as an fp32 pattern (for values; for code 0 the fp32 subnormal 2^-127).
  struct block_scale {
    __m512i exponent_bits, emin_field, code, x_bits;
  };

  static NUMLAB_INLINE __mmask32 join(__mmask16 low, __mmask16 high) {
    return static_cast<__mmask32>(static_cast<std::uint32_t>(low) | static_cast<std::uint32_t>(high) << 16);
  }

  // A partial block's lanes past `present` read as zeros, unless all 32
  // lie in the input (`readable`, for short_rows(), which uses no lane
  // outside its rows): a masked load costs more than a load on the AMD
  // Zen 4 this was measured on (bench/RESULTS.md, issue 15, session 8).
  template <bool Partial>
  NUMLAB_INLINE input load(const float* in, const std::uint32_t* words, __mmask32 present,
                           bool readable = false) const {
    input v;
    if (!Partial || readable) {
      v.x0 = _mm512_loadu_si512(in);
      v.x1 = _mm512_loadu_si512(in + 16);
    } else {
      v.x0 = _mm512_maskz_loadu_epi32(static_cast<__mmask16>(present), in);
      v.x1 = _mm512_maskz_loadu_epi32(static_cast<__mmask16>(present >> 16), in + 16);
    }
    const __m512i magnitude = splat(0x7FFFFFFF), one = splat(1);
    v.a0 = _mm512_and_si512(v.x0, magnitude);
    v.a1 = _mm512_and_si512(v.x1, magnitude);
    // Nonzero values below 2^(emax - 127) wrap to below small_below_ after
    // the - 1; zero wraps to the top.
    v.small = join(_mm512_cmplt_epu32_mask(_mm512_sub_epi32(v.a0, one), small_below_),
                   _mm512_cmplt_epu32_mask(_mm512_sub_epi32(v.a1, one), small_below_));
    v.w0 = Mode == rounding::stochastic ? _mm512_loadu_si512(words) : _mm512_setzero_si512();
    v.w1 = Mode == rounding::stochastic ? _mm512_loadu_si512(words + 16) : _mm512_setzero_si512();
    return v;
  }

  // block()'s scale rule, lane by lane, from each lane's block amax (finite).
  NUMLAB_INLINE block_scale lane_scale(__m512i amax) const {
    __m512i up = _mm512_setzero_si512();
    if (rule_ == scale_rule::mx_rceil) {
      const __m512i limit = _mm512_or_si512(_mm512_and_si512(amax, splat(0x7F800000)), splat(max_fraction_));
      up = _mm512_maskz_mov_epi32(_mm512_cmpgt_epu32_mask(amax, limit), splat(1));
    } else if (rule_ == scale_rule::mx_even) {
      up = _mm512_sub_epi32(_mm512_srli_epi32(_mm512_add_epi32(amax, splat(even_half_)), 23),
                            _mm512_srli_epi32(amax, 23));
    }
    const __m512i field = _mm512_srli_epi32(amax, 23);
    return {_mm512_slli_epi32(_mm512_add_epi32(field, up), 23),
            _mm512_add_epi32(_mm512_add_epi32(field, emin_minus_emax_), up),
            _mm512_sub_epi32(_mm512_add_epi32(field, up), splat(static_cast<std::uint32_t>(emax_))),
            _mm512_setzero_si512()};
  }

  // Rounds the lanes under their scales (s0 for lanes 0..15, s1 for 16..31),
  // writes those in `done` (codes, or values = element · X) and counts them.
  template <bool Masked>
  NUMLAB_INLINE void emit(const input& v, const block_scale& s0, const block_scale& s1, __mmask32 done,
                          std::uint8_t* codes, float* values) {
    const auto done0 = static_cast<__mmask16>(done), done1 = static_cast<__mmask16>(done >> 16);
    lanes r0, r1;
    if constexpr (Mode == rounding::nearest_even) {
      // x / X as an fp32 pattern: the exponent field moved down by X's.
      const __m512i scale_bits0 = _mm512_sub_epi32(s0.exponent_bits, scale_bits_offset_);
      const __m512i scale_bits1 = _mm512_sub_epi32(s1.exponent_bits, scale_bits_offset_);
      if (int8_) {
        r0 = int8_nearest_even16(v.x0, _mm512_sub_epi32(v.a0, scale_bits0));
        r1 = int8_nearest_even16(v.x1, _mm512_sub_epi32(v.a1, scale_bits1));
      } else {
        r0 = nearest_even16(v.x0, _mm512_sub_epi32(v.a0, scale_bits0));
        r1 = nearest_even16(v.x1, _mm512_sub_epi32(v.a1, scale_bits1));
      }
    } else {
      r0 = round16(v.x0, v.a0, s0.emin_field, v.w0);
      r1 = round16(v.x1, v.a1, s1.emin_field, v.w1);
    }
    if (values != nullptr) {
      const __m512 v0 = _mm512_mul_ps(decode16(r0.code), _mm512_castsi512_ps(s0.x_bits));
      const __m512 v1 = _mm512_mul_ps(decode16(r1.code), _mm512_castsi512_ps(s1.x_bits));
      if constexpr (Masked) {
        _mm512_mask_storeu_ps(values, done0, v0);
        _mm512_mask_storeu_ps(values + 16, done1, v1);
      } else {
        _mm512_storeu_ps(values, v0);
        _mm512_storeu_ps(values + 16, v1);
      }
    } else if constexpr (Masked) {
      store_codes16_masked(codes + store_codes16_masked(codes, r0.code, done0, packed_fp4_), r1.code, done1,
                           packed_fp4_);
    } else {
      store_codes16(codes + store_codes16(codes, r0.code, packed_fp4_), r1.code, packed_fp4_);
    }
    const __mmask16 inexact0 = r0.inexact & done0, inexact1 = r1.inexact & done1;
    elements_ += static_cast<std::uint64_t>(__builtin_popcount(static_cast<std::uint32_t>(done)));
    inexact_ += pop(inexact0, inexact1);
    saturated_ += pop(r0.overflow & done0, r1.overflow & done1);
    flushed_ += pop(r0.flushed & done0, r1.flushed & done1);
    if (!underflow_ && !int8_ && (inexact0 | inexact1) != 0) {  // INT8 has no underflow
      underflow_ = any_tiny(k_, v.x0, inexact0, s0.emin_field, v.w0) || any_tiny(k_, v.x1, inexact1, s1.emin_field, v.w1);
    }
  }

  static NUMLAB_INLINE std::uint64_t pop(__mmask16 a, __mmask16 b) {
    return static_cast<std::uint64_t>(
        __builtin_popcount(static_cast<std::uint32_t>(a) | static_cast<std::uint32_t>(b) << 16));
  }

  // Sixteen lanes: x (fp32 patterns), a = |x|, emin_field = the fp32
  // exponent field of the element's 2^emin under the block's scale.
  NUMLAB_INLINE lanes round16(__m512i x, __m512i a, __m512i emin_field, __m512i words) const {
    const __m512i one = splat(1);
    const __m512i biased = _mm512_srli_epi32(a, 23);
    const __mmask16 nonzero = _mm512_test_epi32_mask(a, a);
    // m = hidden bit | fraction (inputs are normal or zero here); 0 in zero lanes.
    const __m512i m = _mm512_maskz_ternarylogic_epi32(nonzero, a, splat(0x7FFFFF), splat(0x800000), 0xEA);
    // Bits cut off: 24 - p in the element's normal range, one more per
    // binade below it (s - 1 computed first: the half bit's position).
    const __m512i s1 = _mm512_max_epi32(
        normal_shift_minus_one_, _mm512_add_epi32(normal_shift_minus_one_, _mm512_sub_epi32(emin_field, biased)));
    const __m512i s = _mm512_add_epi32(s1, one);
    const __m512i truncated = _mm512_srlv_epi32(m, s);  // counts >= 32 give 0
    const __mmask16 inexact = _mm512_cmpneq_epi32_mask(_mm512_sllv_epi32(truncated, s), m);
    __m512i kept = truncated;
    if constexpr (Mode == rounding::nearest_even) {
      // (m + half - 1 + lowest kept bit) >> s; with s - 1 >= 32 the half is
      // 0 and the shift still gives 0.
      const __m512i half = _mm512_sllv_epi32(one, s1);
      const __m512i odd = _mm512_and_si512(truncated, one);
      kept = _mm512_srlv_epi32(_mm512_add_epi32(_mm512_add_epi32(m, odd), _mm512_sub_epi32(half, one)), s);
    } else if constexpr (Mode == rounding::nearest_away) {
      kept = _mm512_srlv_epi32(_mm512_add_epi32(m, _mm512_sllv_epi32(one, s1)), s);
    } else if constexpr (Mode == rounding::to_odd) {
      kept = _mm512_mask_or_epi32(truncated, inexact, truncated, one);
    } else if constexpr (Mode == rounding::toward_positive) {
      kept = _mm512_mask_add_epi32(truncated, inexact & ~_mm512_movepi32_mask(x), truncated, one);
    } else if constexpr (Mode == rounding::toward_negative) {
      kept = _mm512_mask_add_epi32(truncated, inexact & _mm512_movepi32_mask(x), truncated, one);
    } else if constexpr (Mode == rounding::stochastic) {
      // The discarded fraction left-aligned in 32 bits (one shift gives it,
      // the other 0); up iff its top r bits + the word's carry out of 2^r.
      const __m512i fraction = _mm512_or_si512(_mm512_sllv_epi32(m, _mm512_sub_epi32(splat(32), s)),
                                               _mm512_srlv_epi32(m, _mm512_sub_epi32(s, splat(32))));
      const __mmask16 up = _mm512_cmpgt_epu32_mask(_mm512_and_si512(words, top_bits_),
                                                   _mm512_ternarylogic_epi32(fraction, top_bits_, top_bits_, 0x3F));
      kept = _mm512_mask_add_epi32(truncated, up, truncated, one);
    }
    // code = (max(E, E_emin) - E_emin) · 2^(p-1) + kept: the subnormal and
    // normal ranges alike (emin + bias = 1), a carry reaching the next binade.
    const __m512i field = _mm512_sub_epi32(_mm512_max_epi32(biased, emin_field), emin_field);
    return finish(x, _mm512_maskz_add_epi32(nonzero, _mm512_sll_epi32(field, precision_shift_), kept), nonzero,
                  inexact);
  }

  // Nearest-even on the fp32 unit: y = |x| / X (pattern y_bits; exact where
  // x is nonzero and the exponent field stays >= 1, "valid"). Adding C = 2^(23 + quantum
  // exponent), a power of two above y whose ulp is the element's quantum at
  // y (the normal or the subnormal one), rounds y at that quantum in one
  // correctly rounded fp32 addition, and the sum's pattern minus C's is the
  // kept significand in quanta (the sum stays below 2C). Lanes that are not
  // valid lie below 2^-126 · X, far under half the smallest subnormal
  // element: they round to zero.
  NUMLAB_INLINE lanes nearest_even16(__m512i x, __m512i y_bits) const {
    const __mmask16 nonzero = _mm512_test_epi32_mask(x, splat(0x7FFFFFFF));
    const __mmask16 valid = _mm512_mask_cmpgt_epi32_mask(nonzero, y_bits, splat(0x7FFFFF));
    const __m512i quantum_field = _mm512_and_si512(_mm512_max_epi32(y_bits, emin_bits_), splat(0x7F800000));
    const __m512i c_bits = _mm512_add_epi32(quantum_field, c_offset_);
    const __m512 c = _mm512_castsi512_ps(c_bits);
    const __m512 y = _mm512_castsi512_ps(y_bits);
    const __m512 sum = _mm512_add_round_ps(y, c, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m512i kept = _mm512_sub_epi32(_mm512_castps_si512(sum), c_bits);
    const __m512 rounded = _mm512_sub_round_ps(sum, c, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);  // exact
    const __mmask16 inexact = _mm512_mask_cmp_ps_mask(valid, rounded, y, _CMP_NEQ_UQ) | (nonzero & ~valid);
    // code = kept + (max(E_y, E_emin) - E_emin) · 2^(p-1), from C's field.
    const __m512i field = _mm512_sub_epi32(_mm512_srl_epi32(c_bits, normal_shift_count_), c_field_offset_);
    return finish(x, _mm512_maskz_add_epi32(valid, field, kept), nonzero, inexact);
  }

  // MX INT8 (§5.3.4 as in scalar's round_int8): y = |x| / X · 2^6 rounded to
  // an integer by adding C = 2^23 (whose ulp is 1), saturated to 127, or to
  // 128 for negative x (-2 = -128 · 2^-6) unless symmetric; the code is the
  // two's complement byte. INT8 raises no underflow.
  NUMLAB_INLINE lanes int8_nearest_even16(__m512i x, __m512i y_bits) const {
    const __mmask16 nonzero = _mm512_test_epi32_mask(x, splat(0x7FFFFFFF));
    const __mmask16 valid = _mm512_mask_cmpgt_epi32_mask(nonzero, y_bits, splat(0x7FFFFF));
    const __m512i c_bits = splat(0x4B000000);  // 2^23
    const __m512 c = _mm512_castsi512_ps(c_bits);
    const __m512 y = _mm512_castsi512_ps(y_bits);
    const __m512 sum = _mm512_add_round_ps(y, c, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512i kept = _mm512_maskz_sub_epi32(valid, _mm512_castps_si512(sum), c_bits);
    const __m512 rounded = _mm512_sub_round_ps(sum, c, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);  // exact
    const __mmask16 negative = _mm512_movepi32_mask(x);
    const __m512i limit = _mm512_mask_mov_epi32(splat(127), negative, int8_negative_limit_);
    lanes out;
    out.overflow = _mm512_cmpgt_epu32_mask(kept, limit);
    kept = _mm512_min_epu32(kept, limit);
    out.inexact = _mm512_mask_cmp_ps_mask(valid, rounded, y, _CMP_NEQ_UQ) | (nonzero & ~valid) | out.overflow;
    out.flushed = _mm512_mask_testn_epi32_mask(nonzero, kept, kept);
    out.code = _mm512_mask_sub_epi32(kept, negative, _mm512_setzero_si512(), kept);  // the store keeps the low byte
    return out;
  }

  // A lane's element code (as finish() leaves it) to its value, exactly the
  // value dequantize()'s table holds (the kernel makes no inf or NaN codes).
  NUMLAB_INLINE __m512 decode16(__m512i code) const { return int8_ ? int8_value(code) : fields_.value(code); }

  // Saturation, counts and the sign, from the magnitude code (0 in zero lanes).
  NUMLAB_INLINE lanes finish(__m512i x, __m512i code, __mmask16 nonzero, __mmask16 inexact) const {
    lanes out;
    out.overflow = _mm512_cmpgt_epu32_mask(code, max_code_);
    out.flushed = _mm512_mask_testn_epi32_mask(nonzero, code, code);
    code = _mm512_min_epu32(code, max_code_);
    out.inexact = inexact | out.overflow;
    // Sign: fp32's sign bit moved to the element's top bit.
    out.code = _mm512_ternarylogic_epi32(code, _mm512_srl_epi32(x, sign_shift_), sign_bit_, 0xF8);
    return out;
  }

  const mx_kernel_setup& k_;  // for the underflow flag's slow path only
  const __m512i small_below_, normal_shift_minus_one_, max_code_, top_bits_;
  const __m128i precision_shift_, sign_shift_;
  const __m512i sign_bit_, emin_minus_emax_;
  const __m512i scale_bits_offset_, emin_bits_, c_offset_;  // nearest_even16's
  const __m128i normal_shift_count_;
  const __m512i c_field_offset_;
  const int emax_;
  const scale_rule rule_;
  const std::uint32_t max_fraction_, even_half_;  // RCEIL's and EVEN's
  const bool packed_fp4_;
  const bool int8_;
  const __m512i int8_negative_limit_;
  const element_fields fields_;  // decode16's
  // short_rows()'s: the row width, and for each step of the prefix maximum
  // the lane each lane takes (permutex2var indices per half) and which lanes
  // take it; each lane's row's last lane.
  std::size_t cols_ = 32;
  int prefix_steps_ = 0;
  __m512i prefix_from_[4][2]{};
  __mmask16 prefix_takes_[4][2]{};
  __m512i row_last_[2]{};
  std::uint64_t blocks_ = 0, elements_ = 0, inexact_ = 0, saturated_ = 0, flushed_ = 0;
  bool underflow_ = false;
};

template <rounding Mode>
void run_blocks(const mx_kernel_setup& k, const mx_run& run, scaled_result& result, left_blocks& left) {
  mx_blocks<Mode> kernel(k);
  // Locals, so the compiler need not reload them after each store.
  const float* in = run.in;
  std::uint8_t* codes = run.codes;
  std::uint32_t* scales = run.scales;
  const std::size_t blocks = run.blocks;
  const std::uint64_t first_word = run.first_word;
  float* values = run.values;
  const std::size_t block_bytes = k.packed_fp4 ? 16 : 32;
  auto values_of = [values](std::size_t b) { return values == nullptr ? nullptr : values + 32 * b; };
  if constexpr (Mode == rounding::stochastic) {
    random_window random(k.seed, k.stream, first_word);
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::uint32_t* words = random.at(first_word + 32 * b);
      if (!kernel.block(in + 32 * b, words, codes + block_bytes * b, scales[b], values_of(b))) left.add(b);
    }
    if (run.tail != 0) {
      const std::uint32_t* words = random.at(first_word + 32 * blocks);
      if (!kernel.template block<true>(in + 32 * blocks, words, codes + block_bytes * blocks, scales[blocks],
                                       values_of(blocks), run.tail)) {
        left.add(blocks);
      }
    }
  } else {
    for (std::size_t b = 0; b < blocks; ++b) {
      if (!kernel.block(in + 32 * b, nullptr, codes + block_bytes * b, scales[b], values_of(b))) left.add(b);
    }
    if (run.tail != 0 && !kernel.template block<true>(in + 32 * blocks, nullptr, codes + block_bytes * blocks,
                                                      scales[blocks], values_of(blocks), run.tail)) {
      left.add(blocks);
    }
  }
  kernel.add_to(result);
}

template <rounding Mode>
void run_short_rows(const mx_kernel_setup& k, const mx_short_rows& run, scaled_result& result, left_blocks& left) {
  mx_blocks<Mode> kernel(k);
  kernel.use_short_rows(run.cols);
  const std::size_t group = kernel.group_rows(), cols = run.cols;
  const float* in = run.in;
  std::uint8_t* codes = run.codes;
  std::uint32_t* scales = run.scales;
  float* values = run.values;
  const std::uint64_t first_word = run.first_word;
  // Packed FP4 rows (cols even) start on bytes.
  const std::size_t code_shift = k.packed_fp4 ? 1 : 0;
  const std::size_t total = run.rows * cols;
  auto pass = [&](std::size_t row, std::size_t rows, const std::uint32_t* words) {
    const std::size_t first = row * cols;
    const std::uint32_t declined = kernel.short_rows(in + first, words, codes + (first >> code_shift), scales + row,
                                                     values == nullptr ? nullptr : values + first, rows,
                                                     first + 32 <= total);
    for (std::uint32_t d = declined; d != 0; d &= d - 1) left.add(row + static_cast<std::size_t>(__builtin_ctz(d)));
  };
  if constexpr (Mode == rounding::stochastic) {
    random_window random(k.seed, k.stream, first_word);
    for (std::size_t row = 0; row < run.rows; row += group) {
      pass(row, run.rows - row < group ? run.rows - row : group, random.at(first_word + row * cols));
    }
  } else {
    for (std::size_t row = 0; row < run.rows; row += group) {
      pass(row, run.rows - row < group ? run.rows - row : group, nullptr);
    }
  }
  kernel.add_to(result);
}

}  // namespace

void mx_short_rows_avx512(const mx_kernel_setup& k, const mx_short_rows& run, scaled_result& result,
                          left_blocks& left) {
  switch (k.spec.mode) {
    case rounding::nearest_even: return run_short_rows<rounding::nearest_even>(k, run, result, left);
    case rounding::nearest_away: return run_short_rows<rounding::nearest_away>(k, run, result, left);
    case rounding::toward_zero: return run_short_rows<rounding::toward_zero>(k, run, result, left);
    case rounding::toward_positive: return run_short_rows<rounding::toward_positive>(k, run, result, left);
    case rounding::toward_negative: return run_short_rows<rounding::toward_negative>(k, run, result, left);
    case rounding::to_odd: return run_short_rows<rounding::to_odd>(k, run, result, left);
    case rounding::stochastic: return run_short_rows<rounding::stochastic>(k, run, result, left);
  }
}

void mx_blocks_avx512(const mx_kernel_setup& k, const mx_run& run, scaled_result& result, left_blocks& left) {
  switch (k.spec.mode) {
    case rounding::nearest_even: return run_blocks<rounding::nearest_even>(k, run, result, left);
    case rounding::nearest_away: return run_blocks<rounding::nearest_away>(k, run, result, left);
    case rounding::toward_zero: return run_blocks<rounding::toward_zero>(k, run, result, left);
    case rounding::toward_positive: return run_blocks<rounding::toward_positive>(k, run, result, left);
    case rounding::toward_negative: return run_blocks<rounding::toward_negative>(k, run, result, left);
    case rounding::to_odd: return run_blocks<rounding::to_odd>(k, run, result, left);
    case rounding::stochastic: return run_blocks<rounding::stochastic>(k, run, result, left);
  }
}

}  // namespace num::scaled_detail

#ifndef __clang__
#pragma GCC pop_options
#endif
