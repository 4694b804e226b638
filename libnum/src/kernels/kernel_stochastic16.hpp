// Internal: stochastic rounding of fp32 and fp64 inputs into a 16-bit target
// (fp16 or bf16) without counts or flushing, the case mixed-precision
// training calls most. Included by each SIMD kernels_<path>.cpp after
// kernel_lanes.hpp and kernel_draws.hpp (whose vector types, loads, encoder,
// decoder and generator it uses) and after defining `store_fp16_codes(out,
// v)` and `any_lane_above(v, limit)`.
//
// The general lane algorithm (kernel_lanes.hpp) handles any format, input
// width and cut of up to 64 bits; here the target is 16 bits wide, so the
// random word always fits the cut (fp32: the cut fits one 32-bit lane; fp64:
// the cut is at least 42 bits and the word goes in whole), no sticky bits or
// tallies are formed, and the output width and kind are template
// parameters. The core's rule (round up when the bits below the target's
// quantum, left-aligned, plus the random word, both cut to their top r bits,
// carry out of 32 bits) becomes an integer add of the shifted random bits to
// the pattern and a mask, which gives the core's results bit for bit (the
// argument is at bf16_rounded).
#pragma once

namespace num::kernels {
namespace {

struct stochastic16_rounder {
  static constexpr std::uint32_t fp16_min_normal_pattern = 0x38800000u;  // 2^-14 in fp32
  u32v max_finite, overflow_positive, overflow_negative, infinity_result, nan_payload, top_bits;

  explicit stochastic16_rounder(const kernel_plan& plan) {
    const domain_constants& c = plan.domain;
    auto splat = [](auto v) { return u32v{} + static_cast<std::uint32_t>(v); };
    max_finite = splat(c.max_finite);
    overflow_positive = splat(c.overflow_positive);
    overflow_negative = splat(c.overflow_negative);
    infinity_result = splat(c.infinity_result);
    nan_payload = splat(c.nan_payload);
    top_bits = splat(random_word_top_bits(plan.spec.random_bits));
  }

  /// fp32 patterns of x rounded into the target with random words `word`;
  /// Bf16: the target is bf16 (else fp16); Fp16Normal: x passed
  /// fp16_normal_range (fp16 only). Lanes whose result is NaN or infinite
  /// are set in `non_finite`.
  template <bool Bf16, bool Fp16Normal = false>
  NUMLAB_INLINE u32v round(u32v x, u32v word, i32v& non_finite) const {
    const u32v a = x & 0x7FFFFFFFu;
    const u32v wt = word & top_bits;
    const u32v rounded = Bf16 ? bf16_rounded(a, wt) : Fp16Normal ? fp16_normal_rounded(a, wt) : fp16_rounded(a, wt);
    // Overflows, infinities and NaNs all land above the largest finite
    // value (a NaN's or infinity's pattern plus less than one quantum stays
    // at or above the all-ones exponent), and they are rare: one compare
    // finds them and the vector that holds none skips their handling.
    if (!any_lane_above(rounded, max_finite)) return rounded | (x & 0x80000000u);
    return special_results(a, rounded, x & 0x80000000u, non_finite);
  }

  NUMLAB_INLINE u32v special_results(u32v a, u32v rounded, u32v sign, i32v& non_finite) const {
    const u32v zero{};
    const auto finite = a < 0x7F800000u;
    const auto overflow = finite & (rounded > max_finite);
    u32v result = overflow ? (sign != zero ? overflow_negative : overflow_positive) : rounded;
    result = a > 0x7F800000u ? (a & nan_payload) | 0x7FC00000u : result;
    result = a == 0x7F800000u ? infinity_result : result;
    non_finite |= result >= 0x7F800000u;
    return result | sign;
  }

  // The core rounds up when random > ~fraction in 32 bits (both cut to the
  // top r bits), that is when random + fraction carries out of 32 bits.
  // With the random bits shifted down to the s discarded bits, their sum
  // with the pattern carries into the kept bits in exactly those lanes
  // (random and the threshold 2^32 - fraction are both multiples of the
  // shifted-out unit, so what the shift drops never decides the carry, and
  // fraction bits below the top r cannot either), so the rounded pattern is
  // one add and one mask. Here wt is the random word cut to its top r bits.
  NUMLAB_INLINE u32v bf16_rounded(u32v a, u32v wt) const { return (a + (wt >> 16)) & 0xFFFF0000u; }

  // fp16 (emin = -14, 11 significant bits) on fp32 patterns, biased
  // exponent E: the quantum is 2^-24 below 2^-14, so s = max(126 - E, 13)
  // bits are cut. While s <= 23 the cut is inside the significand and the
  // add-and-mask of bf16 applies with a per-lane shift (a carry out of the
  // fraction steps the exponent, as the binade changes). Below 2^-24
  // (E <= 102) the hidden bit is cut too and the result is 0 or 2^-24: the
  // fraction of 2^-24 there, left-aligned in 32 bits, is the significand
  // with its hidden bit, left-aligned, shifted right by 102 - E (0 from a
  // shift of 32 or more, as for every fp32 subnormal; what falls below the
  // lane is below every random bit). It carries with the random bits as the
  // core's compare says; cutting it to its top r bits first would change no
  // carry (the argument at bf16_rounded).
  NUMLAB_INLINE u32v fp16_rounded(u32v a, u32v wt) const {
    const u32v zero{};
    const u32v exponent = a >> 23;
    const i32v below_normal = 126 - reinterpret_cast<i32v>(exponent);
    const auto s = reinterpret_cast<u32v>(below_normal > 13 ? below_normal : i32v{} + 13);
    const u32v normal = (a + shift_right_or_zero(wt, 32u - s)) & shift_left_or_zero(zero + 0xFFFFFFFFu, s);
    const u32v tiny_fraction = shift_right_or_zero((a << 8) | 0x80000000u, 102u - exponent);
    const auto up = wt > (tiny_fraction ^ 0xFFFFFFFFu);
    const u32v tiny = up ? zero + 0x33800000u : zero;
    return s > 23 ? tiny : normal;
  }

  /// Whether every lane of x holds zero or |x| >= 2^-14 (fp16's normal
  /// range, and above it overflows, infinities and NaNs, which round()
  /// sorts out from the rounded pattern as it does on the general way):
  /// there s = 13 in every lane. One subtract, compare and mask test; a - 1
  /// wraps for zero, so the lanes that need the general way are exactly
  /// those with a - 1 < 2^-14's pattern - 1.
  NUMLAB_INLINE bool fp16_normal_range(u32v x) const {
    return !any_lane_above(u32v{} + (fp16_min_normal_pattern - 1u), (x & 0x7FFFFFFFu) - 1u);
  }

  /// fp16_rounded for vectors that passed fp16_normal_range: with s = 13 it
  /// is bf16_rounded with a shift of 19 (zero stays zero: the shifted word
  /// is below the cut), the per-lane shifts and the tiny case gone.
  NUMLAB_INLINE u32v fp16_normal_rounded(u32v a, u32v wt) const { return (a + (wt >> 19)) & 0xFFFFE000u; }
};

/// The same rounding of fp64 inputs (patterns in 64-bit lanes), for
/// fp16 or bf16 alike: the random word, cut to its top r bits, is added
/// left-aligned into the s cut bits and the cut is masked off, where s =
/// max(cut_base - E, normal_shift) for the biased fp64 exponent E (fp16:
/// 1051 - E, at least 42; bf16: 942 - E, at least 45). The cut is never
/// under 32 bits, so the word goes in whole (shifted up by s - 32) and the
/// argument at bf16_rounded carries over: the carry out of the cut bits is
/// the core's decision for every r, and fraction bits below the word's
/// never decide it. Once s passes 52 the hidden bit is cut too and the
/// result is 0 or the smallest subnormal (the tiny case of fp16_rounded).
///
/// It works on half vectors (u64h, kernel_lanes.hpp), as the lane
/// algorithm's fp64 path does.

struct stochastic16_f64_rounder {
  u64h max_finite, overflow_positive, overflow_negative, infinity_result, nan_payload, low_quantum, top_bits;
  i64h cut_base, normal_shift;

  explicit stochastic16_f64_rounder(const kernel_plan& plan) {
    const domain_constants& c = plan.domain;
    auto splat = [](auto v) { return u64h{} + static_cast<std::uint64_t>(v); };
    max_finite = splat(c.max_finite);
    overflow_positive = splat(c.overflow_positive);
    overflow_negative = splat(c.overflow_negative);
    infinity_result = splat(c.infinity_result);
    nan_payload = splat(c.nan_payload);
    low_quantum = splat(c.low_quantum);
    top_bits = splat(random_word_top_bits(plan.spec.random_bits));
    // s below 2^emin is low_shift_base - E (domain_constants), never less
    // than the normal range's cut.
    cut_base = i64h{} + c.low_shift_base;
    normal_shift = i64h{} + c.normal_shift;
  }

  /// Magnitude patterns of |x| rounded with random words `word`
  /// (zero-extended), before overflow, infinity and NaN handling: their low
  /// 32 bits are always zero (the cut is at least 42 bits).
  NUMLAB_INLINE u64h rounded(u64h a, u64h word) const {
    const u64h zero{};
    const u64h one = zero + 1;
    const u64h wt = word & top_bits;
    const i64h below_normal = cut_base - reinterpret_cast<i64h>(a >> 52);
    const i64h s = below_normal > normal_shift ? below_normal : normal_shift;
    // Cuts inside the significand (s <= 52); the other lanes' value is
    // replaced by the tiny result, so their shift is clamped to stay defined.
    const auto inside = s <= 52;
    const u64h cut = reinterpret_cast<u64h>(inside ? s : i64h{} + 52);
    const u64h normal = (a + (wt << (cut - 32))) & ~((one << cut) - one);
    // Below the smallest subnormal: the fraction of it, left-aligned, is the
    // significand with its hidden bit shifted right by s - 53 (nothing from
    // 64 on, as for every fp64 subnormal); its top 32 bits meet the word.
    const u64h tiny_shift = reinterpret_cast<u64h>(s - 53);
    const u64h aligned = (a << 11) | 0x8000000000000000u;
    const u64h tiny_fraction = tiny_shift > 63 ? zero : aligned >> (tiny_shift & 63);
    const auto up = wt > ((tiny_fraction >> 32) ^ 0xFFFFFFFFu);
    return inside ? normal : (up ? low_quantum : zero);
  }

  /// Overflow, infinity and NaN results in place of `rounded` where a (the
  /// input's magnitude) or rounded calls for them; lanes whose result is
  /// NaN or infinite are set in `non_finite`.
  NUMLAB_INLINE u64h special_results(u64h a, u64h rounded, u64h sign, i64h& non_finite) const {
    const u64h zero{};
    const auto overflow = (rounded > max_finite) & (a < 0x7FF0000000000000u);
    u64h result = overflow ? (sign != zero ? overflow_negative : overflow_positive) : rounded;
    result = a > 0x7FF0000000000000u ? (a & nan_payload) | 0x7FF8000000000000u : result;
    result = a == 0x7FF0000000000000u ? infinity_result : result;
    non_finite |= result >= 0x7FF0000000000000u;
    return result;
  }
};

/// The fp32 pattern of an fp64 magnitude pattern holding a 16-bit target's
/// value, ±inf or NaN (exact: such values have at most 11 significant bits
/// and lie in fp32's range; NaNs keep the payload bits a 16-bit target
/// keeps). Only bf16 has values below 2^-126 (fp32 subnormals), and only
/// vectors with a special lane (Special) hold infinities or NaNs.
template <bool Bf16, bool Special>
NUMLAB_INLINE u64h fp32_pattern_of(u64h a) {
  const u64h zero{};
  const u64h exponent = a >> 52;
  // Normal fp32 values: the exponent re-biased by 1023 - 127, 23 fraction bits.
  u64h p = (a >> 29) - (std::uint64_t{1023 - 127} << 23);
  if constexpr (Bf16) {
    // Below 2^-126: the significand, hidden bit included, scaled to units of
    // 2^-149 (a shift of 926 - E, at least 30 for every bf16 subnormal).
    const u64h subnormal = ((a & 0xFFFFFFFFFFFFFu) | 0x10000000000000u) >> ((zero + 926 - exponent) & 63);
    p = exponent < 1023 - 126 ? subnormal : p;
  }
  p = a == zero ? zero : p;
  if constexpr (Special) p = exponent == 0x7FF ? ((a >> 29) & 0x7FFFFFu) | 0x7F800000u : p;
  return p;
}

/// Two half vectors' low 32 bits of each lane as one u32v, in lane order.
NUMLAB_INLINE u32v join_halves(u64h low, u64h high) {
  const u32h l = __builtin_convertvector(low, u32h);
  const u32h h = __builtin_convertvector(high, u32h);
  u32v joined;
  __builtin_memcpy(&joined, &l, sizeof l);
  __builtin_memcpy(reinterpret_cast<unsigned char*>(&joined) + sizeof l, &h, sizeof h);
  return joined;
}

/// fp32 patterns of one vector of fp64 inputs (lanes of them, as two half
/// vectors) rounded stochastically into fp16 or bf16 with `words`.
template <bool Bf16>
NUMLAB_INLINE u32v stochastic16_f64_vector(const stochastic16_f64_rounder& round, const double* in,
                                           const std::uint32_t* words, i64h& non_finite) {
  constexpr int half = lanes / 2;
  u64h a[2], sign[2], r[2];
  for (int h = 0; h < 2; ++h) {
    const u64h x = load_vector<u64h>(in + h * half);
    sign[h] = x & 0x8000000000000000u;
    a[h] = x ^ sign[h];
    r[h] = round.rounded(a[h], __builtin_convertvector(load_vector<u32h>(words + h * half), u64h));
  }
  // The rare lanes (overflow, infinity, NaN) all round above the largest
  // finite value; the rounded patterns' low halves are zero, so their high
  // halves compare in one 32-bit test.
  const u32v high = join_halves(r[0] >> 32, r[1] >> 32);
  const u32v sign32 = join_halves(sign[0] >> 32, sign[1] >> 32);
  if (!any_lane_above(high, u32v{} + static_cast<std::uint32_t>(round.max_finite[0] >> 32))) {
    return join_halves(fp32_pattern_of<Bf16, false>(r[0]), fp32_pattern_of<Bf16, false>(r[1])) | sign32;
  }
  for (int h = 0; h < 2; ++h) r[h] = round.special_results(a[h], r[h], sign[h], non_finite);
  return join_halves(fp32_pattern_of<Bf16, true>(r[0]), fp32_pattern_of<Bf16, true>(r[1])) | sign32;
}

/// What a 16-bit stochastic chunk writes.
enum class stochastic16_output : std::uint8_t { codes, values };

/// Writes one vector of rounded fp32 patterns at element k of out: as values,
/// as bf16 codes (the top halves) or as fp16 codes.
template <bool Bf16, stochastic16_output Out>
__attribute__((always_inline)) inline void store_rounded(void* out, std::size_t k, u32v r) {
  if constexpr (Out == stochastic16_output::values) {
    store_vector(static_cast<float*>(out) + k, r);
  } else if constexpr (Bf16) {
    store_vector(static_cast<std::uint16_t*>(out) + k, __builtin_convertvector(r >> 16, u16v));
  } else {
    store_fp16_codes(static_cast<std::uint16_t*>(out) + k, r);
  }
}

/// Elements [0, n) with n a multiple of lanes and first a multiple of
/// draw_alignment; returns whether some result is NaN or infinite. One
/// generator run per block of block_elements<D> (4 words per Philox block,
/// blocks_per_register blocks per register, sets_in_flight registers; twice
/// that under half_word draws); a last, partial block uses the words it
/// needs of a whole run. Several register sets in flight (the ISA's
/// sets_in_flight): each Philox round waits on a multiply, and with
/// independent sets the rounds run at the multiplier's throughput rather than
/// its latency (bench/RESULTS.md, "Issue 13 (session 9)").
template <random_draws D>
constexpr std::size_t block_elements = draws_per_run<philox_isa, D, philox_isa::sets_in_flight>;

template <bool Bf16, stochastic16_output Out, random_draws D>
bool stochastic16_blocks(const kernel_plan& plan, const float* in, void* out, std::size_t n, std::uint64_t first) {
  constexpr std::size_t block = block_elements<D>;
  const stochastic16_rounder round(plan);
  i32v non_finite{};
  alignas(64) std::uint32_t words[block];
  const philox_round_keys<philox_isa> keys(plan.seed);
  auto round_vectors = [&](std::size_t i, std::size_t vectors) __attribute__((always_inline)) {
    philox_draws<philox_isa, D, philox_isa::sets_in_flight>(keys, plan.stream, first + i, words);
    std::size_t v = 0;
    if constexpr (!Bf16) {
      // fp16: the block's vectors the short way while they are in fp16's
      // normal range (or zero), from the first that is not the general way.
      // Two loops, not a test per vector on one: the test and its branch
      // left GCC 12 rematerialising the general way's constants in every
      // iteration, 12% slower on data with many small values (convert_bench
      // BM_libnum_fp16_sr32_bits, session 12), which now pay one test per block.
      for (; v < vectors; ++v) {
        const std::size_t k = i + v * lanes;
        const u32v x = load_vector<u32v>(in + k);
        if (!round.fp16_normal_range(x)) break;
        store_rounded<Bf16, Out>(out, k, round.template round<false, true>(x, load_vector<u32v>(words + v * lanes), non_finite));
      }
    }
    for (; v < vectors; ++v) {
      const std::size_t k = i + v * lanes;
      const u32v r =
          round.template round<Bf16>(load_vector<u32v>(in + k), load_vector<u32v>(words + v * lanes), non_finite);
      store_rounded<Bf16, Out>(out, k, r);
    }
  };
  // Whole blocks with a constant trip count, then the rest: one loop with a
  // variable bound measured 1.5x slower for bf16 at r = 32 (GCC 12).
  std::size_t i = 0;
  for (; i + block <= n; i += block) round_vectors(i, block / lanes);
  if (i < n) round_vectors(i, (n - i) / lanes);
  return any_lane(non_finite);
}

/// stochastic16_blocks for fp64 inputs: the rounded values' fp32 patterns
/// are written as stochastic16_blocks writes them.
template <bool Bf16, stochastic16_output Out, random_draws D>
bool stochastic16_f64_blocks(const kernel_plan& plan, const double* in, void* out, std::size_t n,
                             std::uint64_t first) {
  constexpr std::size_t block = block_elements<D>;
  const stochastic16_f64_rounder round(plan);
  i64h non_finite{};
  alignas(64) std::uint32_t words[block];
  const philox_round_keys<philox_isa> keys(plan.seed);
  auto round_vectors = [&](std::size_t i, std::size_t vectors) __attribute__((always_inline)) {
    philox_draws<philox_isa, D, philox_isa::sets_in_flight>(keys, plan.stream, first + i, words);
    for (std::size_t v = 0; v < vectors; ++v) {
      const std::size_t k = i + v * lanes;
      const u32v r = stochastic16_f64_vector<Bf16>(round, in + k, words + v * lanes, non_finite);
      store_rounded<Bf16, Out>(out, k, r);
    }
  };
  std::size_t i = 0;
  for (; i + block <= n; i += block) round_vectors(i, block / lanes);
  if (i < n) round_vectors(i, (n - i) / lanes);
  return any_lane(non_finite);
}

template <random_draws D>
bool stochastic16_f64_body(const kernel_plan& plan, const double* in, void* out, std::size_t n, std::uint64_t first) {
  constexpr auto codes = stochastic16_output::codes;
  constexpr auto fp32 = stochastic16_output::values;
  const bool values = plan.op == operation::round_f64;
  if (plan.target == bfloat16_format) {
    return values ? stochastic16_f64_blocks<true, fp32, D>(plan, in, out, n, first)
                  : stochastic16_f64_blocks<true, codes, D>(plan, in, out, n, first);
  }
  return values ? stochastic16_f64_blocks<false, fp32, D>(plan, in, out, n, first)
                : stochastic16_f64_blocks<false, codes, D>(plan, in, out, n, first);
}

template <random_draws D>
bool stochastic16_body(const kernel_plan& plan, const float* in, void* out, std::size_t n, std::uint64_t first) {
  constexpr auto codes = stochastic16_output::codes;
  constexpr auto fp32 = stochastic16_output::values;
  const bool values = plan.op == operation::round_f32;
  if (plan.target == bfloat16_format) {
    return values ? stochastic16_blocks<true, fp32, D>(plan, in, out, n, first)
                  : stochastic16_blocks<true, codes, D>(plan, in, out, n, first);
  }
  return values ? stochastic16_blocks<false, fp32, D>(plan, in, out, n, first)
                : stochastic16_blocks<false, codes, D>(plan, in, out, n, first);
}

/// One vector of the body's rounding for elements that fill only part of it:
/// k elements (k <= lanes - offset) at lanes offset .. offset + k - 1 of a
/// vector whose first lane has stochastic position `position` (a multiple of
/// draw_alignment). They go through stack buffers (the other lanes hold +0,
/// which no non-finite report sees) and the body's own vector code with the
/// words of the same positions, so they get the body's bits; one Philox run
/// of a single register set covers the vector. Returns whether some result
/// is NaN or infinite.
template <bool Bf16, stochastic16_output Out, random_draws D, class In>
bool stochastic16_partial(const kernel_plan& plan, const In* in, void* out, std::size_t k, std::size_t offset,
                          std::uint64_t position) {
  static_assert(draws_per_run<philox_isa, D, 1> >= lanes);
  constexpr std::size_t out_size = Out == stochastic16_output::values ? 4 : 2;
  alignas(64) In x[lanes] = {};
  __builtin_memcpy(x + offset, in, k * sizeof(In));
  alignas(64) std::uint32_t words[draws_per_run<philox_isa, D, 1>];
  philox_draws<philox_isa, D, 1>(plan.seed, plan.stream, position, words);
  alignas(64) unsigned char result[lanes * out_size];
  bool non_finite = false;
  if constexpr (sizeof(In) == 8) {
    const stochastic16_f64_rounder round(plan);
    i64h seen{};
    store_rounded<Bf16, Out>(result, 0, stochastic16_f64_vector<Bf16>(round, x, words, seen));
    non_finite = any_lane(seen);
  } else {
    const stochastic16_rounder round(plan);
    i32v seen{};
    store_rounded<Bf16, Out>(result, 0, round.template round<Bf16>(load_vector<u32v>(x), load_vector<u32v>(words), seen));
    non_finite = any_lane(seen);
  }
  __builtin_memcpy(out, result + offset * out_size, k * out_size);
  return non_finite;
}

template <stochastic16_output Out, random_draws D, class In>
bool stochastic16_partial_of(const kernel_plan& plan, const In* in, void* out, std::size_t k, std::size_t offset,
                             std::uint64_t position) {
  return plan.target == bfloat16_format
             ? stochastic16_partial<true, Out, D>(plan, in, out, k, offset, position)
             : stochastic16_partial<false, Out, D>(plan, in, out, k, offset, position);
}

/// stochastic16_partial for the plan's target, output and draws.
template <class In>
bool run_stochastic16_partial(const kernel_plan& plan, const In* in, void* out, std::size_t k, std::size_t offset,
                              std::uint64_t position) {
  constexpr auto codes = stochastic16_output::codes;
  constexpr auto fp32 = stochastic16_output::values;
  constexpr auto full = random_draws::full_word;
  constexpr auto half = random_draws::half_word;
  const bool values = plan.op == operation::round_f32 || plan.op == operation::round_f64;
  if (plan.draws == half) {
    return values ? stochastic16_partial_of<fp32, half>(plan, in, out, k, offset, position)
                  : stochastic16_partial_of<codes, half>(plan, in, out, k, offset, position);
  }
  return values ? stochastic16_partial_of<fp32, full>(plan, in, out, k, offset, position)
                : stochastic16_partial_of<codes, full>(plan, in, out, k, offset, position);
}

template <class In>
tally run_stochastic16_of(const kernel_plan& plan, const chunk& c) {
  const bool half = plan.draws == random_draws::half_word;
  const bool values = plan.op == operation::round_f32 || plan.op == operation::round_f64;
  const std::size_t out_size = values ? 4 : 2;
  const auto* in = static_cast<const In*>(c.in);
  auto* out = static_cast<unsigned char*>(c.out);
  tally t;
  // An unaligned start: the first vector starts at the aligned position
  // below it, its lanes before the first element unused.
  const auto offset = static_cast<std::size_t>(c.first_index % draw_alignment);
  std::size_t head = offset == 0 ? 0 : lanes - offset;
  head = head < c.n ? head : c.n;
  if (head > 0) t.non_finite = run_stochastic16_partial(plan, in, out, head, offset, c.first_index - offset);
  const std::size_t body = (c.n - head) / lanes * lanes;
  const In* body_in = in + head;
  void* body_out = out + head * out_size;
  const std::uint64_t body_first = c.first_index + head;
  bool non_finite = false;
  if constexpr (sizeof(In) == 8) {
    non_finite = half ? stochastic16_f64_body<random_draws::half_word>(plan, body_in, body_out, body, body_first)
                      : stochastic16_f64_body<random_draws::full_word>(plan, body_in, body_out, body, body_first);
  } else {
    non_finite = half ? stochastic16_body<random_draws::half_word>(plan, body_in, body_out, body, body_first)
                      : stochastic16_body<random_draws::full_word>(plan, body_in, body_out, body, body_first);
  }
  t.non_finite = t.non_finite || non_finite;
  // The tail, less than one vector, from an aligned position.
  const std::size_t done = head + body;
  if (done < c.n) {
    non_finite = run_stochastic16_partial(plan, in + done, out + done * out_size, c.n - done, 0, c.first_index + done);
    t.non_finite = t.non_finite || non_finite;
  }
  return t;
}

/// A chunk of a plan with the stochastic_16bit shortcut (fp32 or fp64
/// inputs): the unaligned head and the tail (less than one vector) as
/// partial vectors of the same code.
tally run_stochastic16(const kernel_plan& plan, const chunk& c) {
  const bool f64 = plan.op == operation::encode_f64 || plan.op == operation::round_f64;
  return f64 ? run_stochastic16_of<double>(plan, c) : run_stochastic16_of<float>(plan, c);
}

}  // namespace
}  // namespace num::kernels
