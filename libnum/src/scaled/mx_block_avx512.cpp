// The AVX-512 MX block kernel: 32 fp32 values as two 16-lane vectors, each
// lane rounded under its block's scale by mx_lane_rounding
// (mx_lane_rounding_avx512.hpp). The rounding mode is a template parameter,
// so each mode's loop holds only its own arithmetic; counts are popcounts of
// lane masks. A row's whole blocks go 16 to a group: first their amaxes and
// scales together (lane j of one vector for block j), then their elements.
// The underflow flag is worked out only until it is raised
// (mx_underflow_avx512.hpp). Rows of at most 16 elements (the trainer's
// k = 9 GEMM operands) go several to a pass, each row its own block under
// its own scale, instead of filling a few lanes of one pass each.
#include <cstdint>

#include "mx_block_kernel.hpp"

// The AVX-512 region opens after every other header (see avx512_region.hpp).
#include "avx512_region.hpp"
#include "element_fields_avx512.hpp"
#include "lane_max_avx512.hpp"
#include "mode_dispatch.hpp"
#include "mx_lane_rounding_avx512.hpp"
#include "mx_underflow_avx512.hpp"
#include "random_window.hpp"

namespace num::scaled_detail {
namespace {

// --- The block loop, one instantiation per rounding mode ---

// Int8: MX INT8 elements. Fused (floating-point
// elements, dequantized values wanted): the values come from the rounding's
// own result (mx_lanes::value), the codes are not made.
template <rounding Mode, bool Int8, bool Fused>
class mx_blocks {
  static_assert(!Fused || !Int8);

 public:
  // Every constant of the loop is a member here, not read through `k`, so
  // the byte stores cannot make the compiler reload it.
  explicit mx_blocks(const mx_kernel_setup& k)
      : k_(k),
        small_below_(splat((static_cast<std::uint32_t>(k.emax > 1 ? k.emax : 1) << 23) - 1)),
        emin_minus_emax_(splat(static_cast<std::uint32_t>(k.emin - k.emax))),
        // INT8 divides by X and multiplies by 2^6 (its implicit scale).
        scale_bits_offset_(splat(static_cast<std::uint32_t>(127 + k.emax + (k.int8 ? 6 : 0)) << 23)),
        emax_(k.emax),
        rule_(k.rule),
        max_fraction_(k.max_fraction),
        even_half_(1u << (23 - k.precision)),
        packed_fp4_(k.packed_fp4),
        lanes_(k) {}

  // A row's partial last block (`count` < 32 elements); false (nothing
  // written) when it needs the scalar path. It reads and writes only its own
  // elements: the lanes past it hold zeros, which change neither the amax
  // nor any count. With `values` set, the block's dequantized values go
  // there instead of its codes.
  NUMLAB_INLINE bool partial_block(const float* in, const std::uint32_t* words, std::uint8_t* codes,
                                   std::uint32_t& scale, float* values, std::size_t count) {
    const auto present = static_cast<__mmask32>((std::uint64_t{1} << count) - 1);
    const input in_lanes = load<true>(in, words, present);
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
    emit<true>(in_lanes, s, s, present, codes, values);
    ++blocks_;
    return true;
  }

  // The first pass over up to 16 whole blocks of a row (`count`, from `in`):
  // their amaxes reduced together, 16 to one vector (lane j block j's), and
  // their scales derived in one go, instead of a butterfly of maxima and a
  // trip through a general register per block: on the Zen 4 this was
  // measured on, the block loop is bound by its vector operations
  // (bench/RESULTS.md, issue 15, session 9). Stores the E8M0 codes of the
  // blocks it takes and keeps their scales for group_block(); returns the
  // blocks left to the scalar path (bit j for block j), for what
  // partial_block() leaves a block for.
  NUMLAB_INLINE std::uint32_t group_scales(const float* in, std::size_t count, std::uint32_t* scales) {
    const __m512i magnitude = splat(0x7FFFFFFF), one = splat(1);
    __m512i amax[16];
    std::uint32_t small = 0;
    for (std::size_t j = 0; j < 16; ++j) {
      if (j >= count) {
        amax[j] = _mm512_setzero_si512();
        continue;
      }
      const __m512i a0 = _mm512_and_si512(_mm512_loadu_si512(in + 32 * j), magnitude);
      const __m512i a1 = _mm512_and_si512(_mm512_loadu_si512(in + 32 * j + 16), magnitude);
      amax[j] = _mm512_max_epu32(a0, a1);
      // As load()'s `small`, for the block as a whole.
      const __m512i least = _mm512_min_epu32(_mm512_sub_epi32(a0, one), _mm512_sub_epi32(a1, one));
      small |= (_mm512_cmplt_epu32_mask(least, small_below_) != 0 ? 1u : 0u) << j;
    }
    const __m512i block_amax = transposed_max(amax);
    const block_scale s = lane_scale(block_amax);
    const auto present = static_cast<__mmask16>((1u << count) - 1);
    const auto declined = static_cast<__mmask16>(
        (small | _mm512_cmpge_epu32_mask(block_amax, splat(0x7F800000)) | _mm512_cmpgt_epi32_mask(s.code, splat(254))) &
        present);
    const __m512i code = _mm512_max_epi32(s.code, _mm512_setzero_si512());
    _mm512_mask_storeu_epi32(scales, present & static_cast<__mmask16>(~declined), code);
    _mm512_store_si512(group_.exponent_bits, s.exponent_bits);
    _mm512_store_si512(group_.emin_field, s.emin_field);
    _mm512_store_si512(group_.x_bits, _mm512_mask_mov_epi32(_mm512_slli_epi32(code, 23),
                                                            _mm512_testn_epi32_mask(code, code), splat(0x00400000u)));
    return declined;
  }

  // Block j of the last group_scales() (not one it declined), as
  // partial_block() would quantize a block. It prefetches the block 64 on
  // (four groups ahead): group_scales() does too little per block to hide
  // the memory's latency itself, and a shorter distance (16, 32) left its
  // loads waiting on a busy machine (bench/RESULTS.md, issue 15, session 9).
  NUMLAB_INLINE void group_block(std::size_t j, const float* in, const std::uint32_t* words, std::uint8_t* codes,
                                 float* values) {
    _mm_prefetch(reinterpret_cast<const char*>(in + 32 * 64), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(in + 32 * 64 + 16), _MM_HINT_T0);
    const input in_lanes = load<false, false>(in, words, ~__mmask32{0});
    // Broadcasts from memory: loads, not vector operations.
    const block_scale s{_mm512_set1_epi32(static_cast<int>(group_.exponent_bits[j])),
                        _mm512_set1_epi32(static_cast<int>(group_.emin_field[j])), _mm512_setzero_si512(),
                        _mm512_set1_epi32(static_cast<int>(group_.x_bits[j]))};
    emit<false>(in_lanes, s, s, ~__mmask32{0}, codes, values);
    ++blocks_;
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
  // Without `Small`, v.small is left 0 (group_scales() has checked the block).
  template <bool Partial, bool Small = true>
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
    v.small = Small ? join(_mm512_cmplt_epu32_mask(_mm512_sub_epi32(v.a0, one), small_below_),
                           _mm512_cmplt_epu32_mask(_mm512_sub_epi32(v.a1, one), small_below_))
                    : 0;
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
    mx_lanes r0, r1;
    if constexpr (Mode == rounding::nearest_even) {
      // x / X as an fp32 pattern: the exponent field moved down by X's.
      const __m512i scale_bits0 = _mm512_sub_epi32(s0.exponent_bits, scale_bits_offset_);
      const __m512i scale_bits1 = _mm512_sub_epi32(s1.exponent_bits, scale_bits_offset_);
      if constexpr (Int8) {
        r0 = lanes_.int8_nearest_even16(v.x0, _mm512_sub_epi32(v.a0, scale_bits0));
        r1 = lanes_.int8_nearest_even16(v.x1, _mm512_sub_epi32(v.a1, scale_bits1));
      } else {
        r0 = lanes_.template nearest_even16<Fused>(v.x0, _mm512_sub_epi32(v.a0, scale_bits0));
        r1 = lanes_.template nearest_even16<Fused>(v.x1, _mm512_sub_epi32(v.a1, scale_bits1));
      }
    } else if constexpr (Int8) {
      r0 = lanes_.int8_round16(v.x0, v.a0, s0.emin_field, v.w0);
      r1 = lanes_.int8_round16(v.x1, v.a1, s1.emin_field, v.w1);
    } else {
      r0 = lanes_.template round16<Fused>(v.x0, v.a0, s0.emin_field, v.w0);
      r1 = lanes_.template round16<Fused>(v.x1, v.a1, s1.emin_field, v.w1);
    }
    if (Fused || values != nullptr) {
      const __m512 v0 = _mm512_mul_ps(value_of(r0), _mm512_castsi512_ps(s0.x_bits));
      const __m512 v1 = _mm512_mul_ps(value_of(r1), _mm512_castsi512_ps(s1.x_bits));
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
    if (!underflow_ && !Int8 && (inexact0 | inexact1) != 0) {  // INT8 has no underflow
      underflow_ = any_tiny(k_, v.x0, inexact0, s0.emin_field, v.w0) || any_tiny(k_, v.x1, inexact1, s1.emin_field, v.w1);
    }
  }

  // A lane's element value: the rounding's own (Fused), else its code's.
  NUMLAB_INLINE __m512 value_of(const mx_lanes& r) const {
    if constexpr (Fused) {
      return r.value;
    } else if constexpr (Int8) {
      return int8_value(r.code);
    } else {
      return lanes_.decode16(r.code);
    }
  }

  static NUMLAB_INLINE std::uint64_t pop(__mmask16 a, __mmask16 b) {
    return static_cast<std::uint64_t>(
        __builtin_popcount(static_cast<std::uint32_t>(a) | static_cast<std::uint32_t>(b) << 16));
  }

  const mx_kernel_setup& k_;  // for the underflow flag's slow path only
  const __m512i small_below_, emin_minus_emax_;
  const __m512i scale_bits_offset_;  // nearest_even16's y = |x| / X
  const int emax_;
  const scale_rule rule_;
  const std::uint32_t max_fraction_, even_half_;  // RCEIL's and EVEN's
  const bool packed_fp4_;
  const mx_lane_rounding<Mode> lanes_;
  // short_rows()'s: the row width, and for each step of the prefix maximum
  // the lane each lane takes (permutex2var indices per half) and which lanes
  // take it; each lane's row's last lane.
  std::size_t cols_ = 32;
  int prefix_steps_ = 0;
  __m512i prefix_from_[4][2]{};
  __mmask16 prefix_takes_[4][2]{};
  __m512i row_last_[2]{};
  // group_scales()'s blocks' scales, lane j block j's (see block_scale).
  struct group_block_scales {
    alignas(64) std::uint32_t exponent_bits[16];
    alignas(64) std::uint32_t emin_field[16];
    alignas(64) std::uint32_t x_bits[16];
  } group_{};
  std::uint64_t blocks_ = 0, elements_ = 0, inexact_ = 0, saturated_ = 0, flushed_ = 0;
  bool underflow_ = false;
};

template <rounding Mode, bool Int8, bool Fused>
void run_blocks(const mx_kernel_setup& k, const mx_run& run, scaled_result& result, left_blocks& left) {
  mx_blocks<Mode, Int8, Fused> kernel(k);
  // Locals, so the compiler need not reload them after each store.
  const float* in = run.in;
  std::uint8_t* codes = run.codes;
  std::uint32_t* scales = run.scales;
  const std::size_t blocks = run.blocks;
  const std::uint64_t first_word = run.first_word;
  float* values = run.values;
  const std::size_t block_bytes = k.packed_fp4 ? 16 : 32;
  auto values_of = [values](std::size_t b) { return values == nullptr ? nullptr : values + 32 * b; };
  // Whole blocks 16 to a group: their scales first, then (stochastic
  // rounding) the group's random words in one go, then their elements.
  auto whole_blocks = [&](auto group_words) {
    for (std::size_t g = 0; g < blocks; g += 16) {
      const std::size_t count = blocks - g < 16 ? blocks - g : 16;
      const std::uint32_t declined = kernel.group_scales(in + 32 * g, count, scales + g);
      const std::uint32_t* words = group_words(g, count);
      for (std::size_t j = 0; j < count; ++j) {
        const std::size_t b = g + j;
        if ((declined >> j & 1u) != 0) {
          left.add(b);
        } else {
          kernel.group_block(j, in + 32 * b, words == nullptr ? nullptr : words + 32 * j, codes + block_bytes * b,
                             values_of(b));
        }
      }
    }
  };
  if constexpr (Mode == rounding::stochastic) {
    random_window random(k.seed, k.stream, first_word);
    static_assert(random_window::max_cover >= 16 * 32);
    whole_blocks([&](std::size_t g, std::size_t count) { return random.cover(first_word + 32 * g, 32 * count); });
    if (run.tail != 0) {
      const std::uint32_t* words = random.at(first_word + 32 * blocks);
      if (!kernel.partial_block(in + 32 * blocks, words, codes + block_bytes * blocks, scales[blocks],
                                       values_of(blocks), run.tail)) {
        left.add(blocks);
      }
    }
  } else {
    whole_blocks([](std::size_t, std::size_t) -> const std::uint32_t* { return nullptr; });
    if (run.tail != 0 && !kernel.partial_block(in + 32 * blocks, nullptr, codes + block_bytes * blocks,
                                                      scales[blocks], values_of(blocks), run.tail)) {
      left.add(blocks);
    }
  }
  kernel.add_to(result);
}

template <rounding Mode, bool Int8, bool Fused>
void run_short_rows(const mx_kernel_setup& k, const mx_short_rows& run, scaled_result& result, left_blocks& left) {
  mx_blocks<Mode, Int8, Fused> kernel(k);
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
  with_mx_variant(k, run.values != nullptr, [&](auto mode, auto int8, auto fused) {
    run_short_rows<decltype(mode)::value, decltype(int8)::value, decltype(fused)::value>(k, run, result, left);
  });
}

void mx_blocks_avx512(const mx_kernel_setup& k, const mx_run& run, scaled_result& result, left_blocks& left) {
  with_mx_variant(k, run.values != nullptr, [&](auto mode, auto int8, auto fused) {
    run_blocks<decltype(mode)::value, decltype(int8)::value, decltype(fused)::value>(k, run, result, left);
  });
}

}  // namespace num::scaled_detail

#ifndef __clang__
#pragma GCC pop_options
#endif
