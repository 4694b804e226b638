// The AVX2 MX block kernel: hand-written SIMD is the product here, the
// AVX2 (+FMA, F16C, BMI2) counterpart of mx_block_avx512.cpp for CPUs
// without AVX-512, under the same contract (mx_block_kernel.hpp) and bit
// for bit the scalar path's results. A block's 32 fp32 values are four
// 8-lane vectors, each lane rounded under the block's scale by
// mx_lane_rounding8 (mx_lane_rounding_avx2.hpp); masks are vectors of
// all-ones lanes, and counts are per-lane counters (a subtraction of the
// mask per vector) summed once per run. A row's whole blocks go 16 to a
// group: first each one's amax (a reduction of its own vectors) and scale
// (mx_scale_avx2.hpp, in a general register), then their elements. The
// rounding mode is a template parameter, so each mode's loop holds only its
// own arithmetic; a run stops watching for the underflow flag once it is
// raised. Rows of at most 16 elements go several to a pass of the 32
// lanes, each row its own block under its own scale.
#include <cstdint>

#include "libnum/cpu_features.hpp"
#include "mx_block_kernel.hpp"

namespace num::scaled_detail {

// Outside the AVX2 region (one stmxcsr): nearest_even8's fp32 arithmetic
// rounds as the MXCSR says, where the AVX-512 kernel names the rounding in
// each instruction; the other modes round on integers.
bool mx_avx2_usable(rounding mode) { return mode != rounding::nearest_even || mxcsr_rounds_to_nearest(); }

}  // namespace num::scaled_detail

// The AVX2 region opens after every other header (see avx2_region.hpp).
#include "avx2_region.hpp"
#include "element_fields_avx2.hpp"
#include "kernels/philox_avx2.hpp"
#include "mode_dispatch.hpp"
#include "mx_lane_rounding_avx2.hpp"
#include "mx_scale_avx2.hpp"
#include "mx_underflow_avx2.hpp"
#include "philox_window.hpp"

namespace num::scaled_detail {
namespace {

using random_window8 = philox_window<kernels::philox_avx2_isa>;

// --- The block loop, one instantiation per rounding mode ---

// Int8: MX INT8 elements. FusedValues (floating-point
// elements, dequantized values wanted): the values come from the rounding's
// own result (mx_lanes8::value), the codes are not made.
template <rounding Mode, bool Int8, bool FusedValues = false>
class mx_blocks8 {
  static_assert(!FusedValues || !Int8);

 public:
  // Every constant of the loop is a member here, not read through `k`, so
  // the byte stores cannot make the compiler reload it.
  explicit mx_blocks8(const mx_kernel_setup& k)
      : k_(k),
        // INT8 divides by X and multiplies by 2^6 (its implicit scale).
        scale_bits_offset_(splat8(static_cast<std::uint32_t>(127 + k.emax + (k.int8 ? 6 : 0)) << 23)),
        emin_minus_emax_(splat8(static_cast<std::uint32_t>(k.emin - k.emax))),
        rule_(k),
        packed_fp4_(k.packed_fp4),
        lanes_(k),
        inexact_(_mm256_setzero_si256()),
        saturated_(_mm256_setzero_si256()),
        flushed_(_mm256_setzero_si256()) {}

  // A row's partial last block (`count` < 32 elements), which reads and
  // writes only its own elements, the lanes past it holding zeros, which
  // change neither the amax nor any count. False (nothing written) when it
  // needs the scalar path. With `values` set, the block's dequantized values
  // go there instead of its codes.
  NUMLAB_INLINE bool partial_block(const float* in, const std::uint32_t* words, std::uint8_t* codes,
                                   std::uint32_t& scale, float* values, std::size_t count) {
    const auto present = static_cast<std::uint32_t>((std::uint64_t{1} << count) - 1);
    input v;
    load<true>(v, in, words, present, false);
    mx_scale8 s;
    if (!rule_.scale_of_block(v.a, s)) return false;
    scale = s.code;
    emit<true, true>(v, uniform(s.exponent, s.x_bits, s.inv_x_bits, values != nullptr), count, codes, values);
    ++blocks_;
    return true;
  }

  // The first pass over up to 16 whole blocks of a row (`count`, from `in`):
  // each block's amax and scale, kept for group_block(), whose rounding then
  // starts without waiting on them: a block's amax, its trip through a
  // general register and its scale's broadcast are one long chain of
  // latencies, which the out-of-order core did not overlap with the
  // previous block's rounding (measured on a Zen 3 in issue 15, session 14).
  // Stores the E8M0 codes of the blocks it takes; returns the blocks left to
  // the scalar path (bit j for block j), for what partial_block() leaves one for.
  NUMLAB_INLINE std::uint32_t group_scales(const float* in, std::size_t count, std::uint32_t* scales) {
    std::uint32_t declined = 0;
    for (std::size_t j = 0; j < count; ++j) {
      // The block 64 on (four groups ahead), as the AVX-512 kernel: the
      // pass does too little per block to hide the memory's latency itself.
      _mm_prefetch(reinterpret_cast<const char*>(in + 32 * (j + 64)), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(in + 32 * (j + 64) + 16), _MM_HINT_T0);
      input v;
      load<false>(v, in + 32 * j, nullptr, ~0u, false);
      mx_scale8 s;
      if (!rule_.scale_of_block(v.a, s)) {
        declined |= 1u << j;
        continue;
      }
      scales[j] = s.code;
      group_.exponent[j] = s.exponent;
      group_.x_bits[j] = s.x_bits;
      group_.inv_x_bits[j] = s.inv_x_bits;
    }
    return declined;
  }

  // Block j of the last group_scales() (not one it declined), at `in`, as
  // partial_block() quantizes a block. With `Watch`, its lanes are checked
  // for tininess until the underflow flag is raised; without, not (a run
  // switches to blocks without once the flag is raised: the check's code,
  // though not run, cost the loop 8% of its time on a Zen 3 in issue 15,
  // session 14).
  template <bool Watch>
  NUMLAB_INLINE void group_block(std::size_t j, const float* in, const std::uint32_t* words, std::uint8_t* codes,
                                 float* values) {
    input v;
    load<false>(v, in, words, ~0u, false);
    // Broadcasts from memory: loads, not vector operations.
    emit<false, Watch>(v, uniform(group_.exponent[j], group_.x_bits[j], group_.inv_x_bits[j], values != nullptr), 32,
                       codes, values);
    ++blocks_;
  }

  // `rows` (at most group_rows()) rows of `cols` elements each, stored one
  // after another, in one pass of the 32 lanes: each row is its own block,
  // with its own scale, its amax found in a general register, its scale
  // moved to its lanes by a permutation (rows of 4 or more: at most eight
  // rows to a pass) or a gather. Returns the rows left to the scalar path
  // (bit r for row r), of which nothing is written. `readable`: the input
  // goes on for 32 elements from `in`.
  NUMLAB_INLINE std::uint32_t short_rows(const float* in, const std::uint32_t* words, std::uint8_t* codes,
                                         std::uint32_t* scales, float* values, std::size_t rows, bool readable) {
    const std::size_t used = rows * cols_;
    const auto present = static_cast<std::uint32_t>((std::uint64_t{1} << used) - 1);
    input v;
    load<true>(v, in, words, present, readable);
    // Row r's scale at entry r (zeros past the last row: lanes past `used`
    // take them, and are neither counted nor written).
    alignas(32) std::uint32_t magnitude[32], row_exponent[32], row_x_bits[32], row_inv_x_bits[32];
    for (int i = 0; i < 4; ++i) {
      _mm256_store_si256(reinterpret_cast<__m256i*>(magnitude + 8 * i), v.a[i]);
      _mm256_store_si256(reinterpret_cast<__m256i*>(row_exponent + 8 * i), _mm256_setzero_si256());
      _mm256_store_si256(reinterpret_cast<__m256i*>(row_x_bits + 8 * i), _mm256_setzero_si256());
      _mm256_store_si256(reinterpret_cast<__m256i*>(row_inv_x_bits + 8 * i), _mm256_setzero_si256());
    }
    const std::uint32_t small = lane_bits(rule_.small_lane_mask(v.a[0]), rule_.small_lane_mask(v.a[1]),
                                          rule_.small_lane_mask(v.a[2]), rule_.small_lane_mask(v.a[3])) &
                                present;
    std::uint32_t left = 0, done = 0;
    std::size_t taken = 0;
    const std::uint32_t row_lanes = static_cast<std::uint32_t>((std::uint64_t{1} << cols_) - 1);
    for (std::size_t r = 0; r < rows; ++r) {
      const std::size_t first = r * cols_;
      std::uint32_t amax = 0;
      for (std::size_t j = first; j < first + cols_; ++j) amax = magnitude[j] > amax ? magnitude[j] : amax;
      mx_scale8 s;
      // A row is left to the scalar path for what a block is left for.
      if ((small & row_lanes << first) != 0 || !rule_.scale_of(amax, s)) {
        left |= 1u << r;
        continue;
      }
      scales[r] = s.code;
      done |= row_lanes << first;
      ++taken;
      row_exponent[r] = static_cast<std::uint32_t>(s.exponent);
      row_x_bits[r] = s.x_bits;
      row_inv_x_bits[r] = s.inv_x_bits;
    }
    lane_scales row_scale_lanes{};
    spread_rows(row_exponent, row_scale_lanes.exponent);
    if (values != nullptr) spread_rows(row_x_bits, row_scale_lanes.x_bits);
    spread_rows(row_inv_x_bits, row_scale_lanes.inv_x_bits);
    emit_rows(v, row_scale_lanes, done, left, codes, values, rows);
    blocks_ += taken;
    return left;
  }

  // Rows of `cols` <= 16 elements go group_rows() to a pass.
  void use_short_rows(std::size_t cols) {
    cols_ = cols;
    alignas(32) std::int32_t row_of_lane[32];
    for (std::size_t j = 0; j < 32; ++j) {
      const std::size_t row = j / cols < group_rows() ? j / cols : group_rows() - 1;
      row_of_lane[j] = static_cast<std::int32_t>(row);
    }
    for (int i = 0; i < 4; ++i) {
      row_of_lane_[i] = _mm256_load_si256(reinterpret_cast<const __m256i*>(row_of_lane + 8 * i));
    }
  }
  std::size_t group_rows() const { return 32 / cols_; }

  // Whether the underflow flag is raised (blocks need not watch for it).
  bool underflow_raised() const { return underflow_; }

  void add_to(scaled_result& result) const {
    scaled_counts& c = result.counts;
    c.elements += elements_;
    c.blocks += blocks_;
    const std::uint64_t inexact = total(inexact_), saturated = total(saturated_), flushed = total(flushed_);
    c.inexact += inexact;
    c.saturated += saturated;
    c.block_underflow += flushed;
    if (inexact != 0) result.raised |= flags::inexact;
    if (saturated != 0) result.raised |= flags::overflow;
    if (underflow_) result.raised |= flags::underflow;
  }

 private:
  // A block's 32 lanes: a = |x| as four vectors, and where to read x (the
  // fp32 patterns) and the random words (stochastic rounding only) again
  // when each vector is rounded, rather than keep them in registers: AVX2's
  // sixteen did not hold them beside the rounding's, and spills cost a
  // store and a load where a reload costs a load.
  struct input {
    __m256i a[4];
    const float* in;
    const std::uint32_t* words;
    std::uint32_t present;
    bool masked;  // lanes past `present` read as zeros
  };
  // Each vector's lanes' scale exponents (mx_scale8::exponent) and X
  // patterns: one block's in every lane (uniform_scale), or each lane its
  // row's (lane_scales, short rows).
  struct uniform_scale {
    __m256i exponent, x_bits;
    __m256 inv_x;
    NUMLAB_INLINE __m256i exponent_of(int) const { return exponent; }
    NUMLAB_INLINE __m256 inv_x_of(int) const { return inv_x; }
  };
  struct lane_scales {
    __m256i exponent[4], x_bits[4], inv_x_bits[4];
    NUMLAB_INLINE __m256i exponent_of(int i) const { return exponent[i]; }
    NUMLAB_INLINE __m256 inv_x_of(int i) const { return _mm256_castsi256_ps(inv_x_bits[i]); }
  };

  // A block's scale in every lane (x_bits only where the values are wanted).
  static NUMLAB_INLINE uniform_scale uniform(int exponent, std::uint32_t x_bits, std::uint32_t inv_x_bits,
                                             bool values) {
    return {splat8(static_cast<std::uint32_t>(exponent)), values ? splat8(x_bits) : _mm256_setzero_si256(),
            _mm256_castsi256_ps(splat8(inv_x_bits))};
  }

  // Reads the lanes in `present` (all 32 where !Partial or `readable`, for
  // short_rows(), which uses no lane outside its rows); the others read as zeros.
  template <bool Partial>
  NUMLAB_INLINE void load(input& v, const float* in, const std::uint32_t* words, std::uint32_t present,
                          bool readable) const {
    v.in = in;
    v.words = words;
    v.present = present;
    v.masked = Partial && !readable;
    const __m256i magnitude = splat8(0x7FFFFFFF);
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i) v.a[i] = _mm256_and_si256(x_of(v, i), magnitude);
  }

  // Vector i of the lanes' fp32 patterns.
  static NUMLAB_INLINE __m256i x_of(const input& v, int i) {
    const auto* p = reinterpret_cast<const int*>(v.in + 8 * i);
    if (v.masked) return _mm256_maskload_epi32(p, lanes_of_bits(v.present >> (8 * i)));
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }

  // Vector i of the lanes' random words (stochastic rounding only).
  static NUMLAB_INLINE __m256i words_of(const input& v, int i) {
    if constexpr (Mode == rounding::stochastic) {
      return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v.words + 8 * i));
    } else {
      return _mm256_setzero_si256();
    }
  }

  // Rounds the four vectors under their lanes' scales, counting the lanes in
  // `done` (all-ones vectors; all where null), into `codes`. Each vector's
  // masks are spent before the next is rounded, the underflow flag's test
  // included, so that only the codes stay live.
  template <bool Watch, class Scales>
  NUMLAB_INLINE void round_lanes(const input& v, const Scales& s, const __m256i* done, __m256i* codes,
                                 __m256* fused_values) {
    // Unrolled: a loop kept the vectors in arrays on the stack (GCC 12).
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i) {
      const __m256i x = x_of(v, i), words = words_of(v, i);
      mx_lanes8 r;
      if constexpr (Int8 && Mode == rounding::nearest_even) {
        // x / X · 2^6 as an fp32 pattern: the exponent field moved down by X's.
        const __m256i scale_bits = _mm256_sub_epi32(_mm256_slli_epi32(s.exponent_of(i), 23), scale_bits_offset_);
        r = lanes_.int8_nearest_even8(x, v.a[i], _mm256_sub_epi32(v.a[i], scale_bits));
      } else if constexpr (Mode == rounding::nearest_even) {
        r = lanes_.nearest_even8(x, v.a[i], s.inv_x_of(i));
      } else if constexpr (Int8) {
        r = lanes_.int8_round8(x, v.a[i], lanes_.int8_quotient8(v.a[i], s.exponent_of(i)), words);
      } else {
        const __m256i y = _mm256_castps_si256(_mm256_mul_ps(_mm256_castsi256_ps(v.a[i]), s.inv_x_of(i)));
        r = lanes_.template round8<FusedValues>(x, v.a[i], y, words);
      }
      const __m256i inexact = done == nullptr ? r.inexact : _mm256_and_si256(r.inexact, done[i]);
      const __m256i overflow = done == nullptr ? r.overflow : _mm256_and_si256(r.overflow, done[i]);
      const __m256i flushed = done == nullptr ? r.flushed : _mm256_and_si256(r.flushed, done[i]);
      // An all-ones lane is -1: subtracting it counts one.
      inexact_ = _mm256_sub_epi32(inexact_, inexact);
      saturated_ = _mm256_sub_epi32(saturated_, overflow);
      flushed_ = _mm256_sub_epi32(flushed_, flushed);
      codes[i] = r.code;
      if constexpr (FusedValues) fused_values[i] = r.value;
      if constexpr (Watch && !Int8) {  // INT8 has no underflow
        if (!underflow_ && !_mm256_testz_si256(inexact, inexact)) {
          underflow_ = any_tiny8(k_, x, inexact, _mm256_add_epi32(s.exponent_of(i), emin_minus_emax_), words);
        }
      }
    }
  }

  // A block's `count` lanes (all 32, or a partial block's first ones)
  // rounded and written: codes, or values = element · X.
  template <bool Partial, bool Watch>
  NUMLAB_INLINE void emit(const input& v, const uniform_scale& s, std::size_t count, std::uint8_t* codes,
                          float* values) {
    __m256i code[4];
    __m256 fused[4];
    round_lanes<Watch>(v, s, nullptr, code, fused);  // lanes past a partial block are zeros: nothing to count
    elements_ += count;
    if (FusedValues || values != nullptr) {
      // A partial block's values go through a buffer: vmaskmovps stores
      // cost several times a store on the AMD Zen 3 this was measured on.
      alignas(32) float buffer[32];
      float* out = Partial ? buffer : values;
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) {
        _mm256_storeu_ps(out + 8 * i, _mm256_mul_ps(value_of(code[i], fused[i]), _mm256_castsi256_ps(s.x_bits)));
      }
      if constexpr (Partial) __builtin_memcpy(values, buffer, count * sizeof(float));
      return;
    }
    const __m256i bytes = code_bytes32(code[0], code[1], code[2], code[3], packed_fp4_);
    if constexpr (Partial) {
      alignas(32) std::uint8_t buffer[32];
      store_code_bytes32(buffer, bytes, packed_fp4_);
      __builtin_memcpy(codes, buffer, packed_fp4_ ? count / 2 : count);
    } else {
      store_code_bytes32(codes, bytes, packed_fp4_);
    }
  }

  // short_rows()'s lanes: those in `done` (the rows not in `left`) rounded,
  // counted and written.
  NUMLAB_INLINE void emit_rows(const input& v, const lane_scales& s, std::uint32_t done, std::uint32_t left,
                               std::uint8_t* codes, float* values, std::size_t rows) {
    const __m256i done_lanes[4] = {lanes_of_bits(done), lanes_of_bits(done >> 8), lanes_of_bits(done >> 16),
                                   lanes_of_bits(done >> 24)};
    __m256i code[4];
    __m256 fused[4];
    round_lanes<true>(v, s, done_lanes, code, fused);
    std::size_t taken_rows = 0;
    for (std::size_t row = 0; row < rows; ++row) taken_rows += (left >> row & 1u) == 0 ? 1 : 0;
    elements_ += taken_rows * cols_;
    // The rows not left go out through a buffer (as partial blocks' values).
    alignas(32) unsigned char buffer[32 * sizeof(float)];
    std::size_t row_bytes = 0;
    unsigned char* out = nullptr;
    if (FusedValues || values != nullptr) {
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) {
        _mm256_store_ps(reinterpret_cast<float*>(buffer) + 8 * i,
                        _mm256_mul_ps(value_of(code[i], fused[i]), _mm256_castsi256_ps(s.x_bits[i])));
      }
      row_bytes = cols_ * sizeof(float);
      out = reinterpret_cast<unsigned char*>(values);
    } else {
      store_code_bytes32(buffer, code_bytes32(code[0], code[1], code[2], code[3], packed_fp4_), packed_fp4_);
      // Packed FP4 rows (cols even) start on bytes.
      row_bytes = packed_fp4_ ? cols_ / 2 : cols_;
      out = codes;
    }
    if (left == 0) {
      __builtin_memcpy(out, buffer, rows * row_bytes);
      return;
    }
    for (std::size_t row = 0; row < rows; ++row) {
      if ((left >> row & 1u) == 0) __builtin_memcpy(out + row * row_bytes, buffer + row * row_bytes, row_bytes);
    }
  }

  // Each lane's entry of `per_row` (row r's at entry r), its row's.
  NUMLAB_INLINE void spread_rows(const std::uint32_t* per_row, __m256i* lanes) const {
    if (cols_ >= 4) {
      const __m256i rows = _mm256_load_si256(reinterpret_cast<const __m256i*>(per_row));
      for (int i = 0; i < 4; ++i) lanes[i] = _mm256_permutevar8x32_epi32(rows, row_of_lane_[i]);
    } else {
      for (int i = 0; i < 4; ++i) {
        lanes[i] = _mm256_i32gather_epi32(reinterpret_cast<const int*>(per_row), row_of_lane_[i], 4);
      }
    }
  }

  // A lane's element value: the rounding's own (FusedValues), else its code's.
  NUMLAB_INLINE __m256 value_of(__m256i code, __m256 fused) const {
    if constexpr (FusedValues) {
      return fused;
    } else {
      return decode(code);
    }
  }

  // Element codes to their values.
  NUMLAB_INLINE __m256 decode(__m256i code) const {
    if constexpr (Int8) {
      return int8_value8(code);
    } else {
      return lanes_.decode8(code);
    }
  }

  // The sum of a vector of per-lane counters.
  static NUMLAB_INLINE std::uint64_t total(__m256i counts) {
    const __m256i low = _mm256_cvtepu32_epi64(_mm256_castsi256_si128(counts));
    const __m256i high = _mm256_cvtepu32_epi64(_mm256_extracti128_si256(counts, 1));
    const __m256i sum = _mm256_add_epi64(low, high);
    const __m128i half = _mm_add_epi64(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
    return static_cast<std::uint64_t>(_mm_cvtsi128_si64(half)) + static_cast<std::uint64_t>(_mm_extract_epi64(half, 1));
  }

  const mx_kernel_setup& k_;         // for the underflow flag's slow path only
  const __m256i scale_bits_offset_;  // INT8's y = |x| / X · 2^6
  const __m256i emin_minus_emax_;    // the element's 2^emin field under X, from X's exponent
  const mx_scale_rule8 rule_;
  const bool packed_fp4_;
  const mx_lane_rounding8<Mode> lanes_;
  std::size_t cols_ = 32;     // short_rows()'s row width
  __m256i row_of_lane_[4]{};  // short_rows()'s: each lane's row (the last row's past them)
  // group_scales()'s blocks' scales, j block j's (see mx_scale8).
  struct group_block_scales {
    int exponent[16];
    std::uint32_t x_bits[16], inv_x_bits[16];
  } group_{};
  // Per-lane counts of inexact, saturated and flushed lanes, summed by
  // add_to(): a lane counts at most four per block, so 32 bits last for
  // 2^30 blocks (128 GiB of input) in one run.
  __m256i inexact_, saturated_, flushed_;
  std::uint64_t blocks_ = 0, elements_ = 0;
  bool underflow_ = false;
};

// Whether blocks watch for the underflow flag, as a type.
template <bool Watch>
struct watching {
  static constexpr bool value = Watch;
};

template <rounding Mode, bool Int8 = false, bool FusedValues = false>
void run_blocks(const mx_kernel_setup& k, const mx_run& run, scaled_result& result, left_blocks& left) {
  mx_blocks8<Mode, Int8, FusedValues> kernel(k);
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
  // rounding) the group's random words in one go, then their elements;
  // those until the underflow flag is raised watch for it, the rest do not.
  auto whole_blocks = [&](auto group_words) {
    for (std::size_t g = 0; g < blocks; g += 16) {
      const std::size_t count = blocks - g < 16 ? blocks - g : 16;
      const std::uint32_t declined = kernel.group_scales(in + 32 * g, count, scales + g);
      const std::uint32_t* words = group_words(g, count);
      auto block_at = [&](auto watch, std::size_t j) {
        const std::size_t b = g + j;
        if ((declined >> j & 1u) != 0) {
          left.add(b);
        } else {
          kernel.template group_block<decltype(watch)::value>(
              j, in + 32 * b, words == nullptr ? nullptr : words + 32 * j, codes + block_bytes * b, values_of(b));
        }
      };
      std::size_t j = 0;
      for (; j < count && !kernel.underflow_raised(); ++j) block_at(watching<true>{}, j);
      for (; j < count; ++j) block_at(watching<false>{}, j);
    }
  };
  auto partial_block = [&](const std::uint32_t* words) {
    if (!kernel.partial_block(in + 32 * blocks, words, codes + block_bytes * blocks, scales[blocks], values_of(blocks),
                              run.tail)) {
      left.add(blocks);
    }
  };
  if constexpr (Mode == rounding::stochastic) {
    random_window8 random(k.seed, k.stream, first_word);
    static_assert(random_window8::max_cover >= 16 * 32);
    whole_blocks([&](std::size_t g, std::size_t count) { return random.cover(first_word + 32 * g, 32 * count); });
    if (run.tail != 0) partial_block(random.at(first_word + 32 * blocks));
  } else {
    whole_blocks([](std::size_t, std::size_t) -> const std::uint32_t* { return nullptr; });
    if (run.tail != 0) partial_block(nullptr);
  }
  kernel.add_to(result);
}

template <rounding Mode, bool Int8 = false, bool FusedValues = false>
void run_short_rows(const mx_kernel_setup& k, const mx_short_rows& run, scaled_result& result, left_blocks& left) {
  mx_blocks8<Mode, Int8, FusedValues> kernel(k);
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
    const std::uint32_t declined =
        kernel.short_rows(in + first, words, codes + (first >> code_shift), scales + row,
                          values == nullptr ? nullptr : values + first, rows, first + 32 <= total);
    for (std::uint32_t d = declined; d != 0; d &= d - 1) left.add(row + static_cast<std::size_t>(__builtin_ctz(d)));
  };
  if constexpr (Mode == rounding::stochastic) {
    random_window8 random(k.seed, k.stream, first_word);
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

void mx_short_rows_avx2(const mx_kernel_setup& k, const mx_short_rows& run, scaled_result& result, left_blocks& left) {
  with_mx_variant(k, run.values != nullptr, [&](auto mode, auto int8, auto fused) {
    run_short_rows<decltype(mode)::value, decltype(int8)::value, decltype(fused)::value>(k, run, result, left);
  });
}

void mx_blocks_avx2(const mx_kernel_setup& k, const mx_run& run, scaled_result& result, left_blocks& left) {
  with_mx_variant(k, run.values != nullptr, [&](auto mode, auto int8, auto fused) {
    run_blocks<decltype(mode)::value, decltype(int8)::value, decltype(fused)::value>(k, run, result, left);
  });
}

}  // namespace num::scaled_detail

#ifndef __clang__
#pragma GCC pop_options
#endif
