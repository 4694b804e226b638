// Internal: the array kernels' element algorithm on GCC generic vectors.
//
// Included once by each kernels_<path>.cpp after it has defined NUMLAB_LANES
// (the number of 32-bit lanes) and, inside the file's target region,
// `philox_words(plan, position, out)` (the words of 4 * NUMLAB_LANES
// positions from a multiple of draw_alignment, under the plan's draws), `exact_fp16_encode_available` and
// `exact_fp16_encode(u32v)` (fp16 encodings of fp32 patterns that hold fp16
// values, ±inf or NaN). Everything here has internal linkage, so each path
// keeps its own instruction set.
//
// The algorithm works on the input's bit pattern with integers only (so it
// does not depend on MXCSR): the bits below the target's quantum are cut off
// (their value, left-aligned in a lane, decides the rounding) and one quantum
// is added to the truncated pattern when rounding away from zero; the carry
// runs into the exponent field exactly as the value's binade changes.

// Every function here is internal and inlined, so the ABI of passing wide
// vectors between functions compiled for different ISAs never arises (GCC
// reports it at the end of the file, so this stays in force to the end).
#pragma GCC diagnostic ignored "-Wpsabi"

namespace num::kernels {
namespace {

constexpr int lanes = NUMLAB_LANES;
typedef std::uint32_t u32v __attribute__((vector_size(4 * lanes)));
typedef std::int32_t i32v __attribute__((vector_size(4 * lanes)));
// Half vectors of 64-bit lanes (lanes / 2 of them, one machine register):
// GCC 12 lowers selects and shifts on a two-register vector of 64-bit lanes
// one lane at a time, so the fp64 paths work on halves.
typedef std::uint64_t u64h __attribute__((vector_size(4 * lanes)));
typedef std::int64_t i64h __attribute__((vector_size(4 * lanes)));
typedef std::uint32_t u32h __attribute__((vector_size(2 * lanes)));
typedef std::uint16_t u16v __attribute__((vector_size(2 * lanes)));
typedef std::uint8_t u8v __attribute__((vector_size(lanes)));
typedef float f32v __attribute__((vector_size(4 * lanes)));

#define NUMLAB_INLINE inline __attribute__((always_inline))

/// The fp32 input domain.
struct f32_domain {
  using U = u32v;
  using S = i32v;
  using scalar = std::uint32_t;
  using value = float;
  static constexpr int W = 32, M = 23;
};
/// The fp64 input domain, in half vectors (lanes / 2 64-bit values, one
/// register); round_chunk puts two together for each vector of codes.
struct f64_domain {
  using U = u64h;
  using S = i64h;
  using scalar = std::uint64_t;
  using value = double;
  static constexpr int W = 64, M = 52;
};

template <class D>
struct bits_of {
  using U = typename D::U;
  using scalar = typename D::scalar;
  static constexpr scalar sign = scalar{1} << (D::W - 1);
  static constexpr scalar hidden = scalar{1} << D::M;
  static constexpr scalar mantissa = hidden - 1;
  static constexpr scalar infinity = ((scalar{1} << (D::W - 1 - D::M)) - 1) << D::M;
  static constexpr scalar quiet_nan = infinity | (hidden >> 1);
  static NUMLAB_INLINE U splat(std::uint64_t v) { return U{} + static_cast<scalar>(v); }
};

template <class V>
NUMLAB_INLINE V load_vector(const void* p) {
  V v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
template <class V>
NUMLAB_INLINE void store_vector(void* p, V v) {
  __builtin_memcpy(p, &v, sizeof v);
}

/// Whether any lane of a compare mask is set.
template <class S>
NUMLAB_INLINE bool any_lane(S mask) {
  std::int64_t bits = 0;
  for (int i = 0; i < static_cast<int>(sizeof(S) / sizeof(mask[0])); ++i) bits |= mask[i];
  return bits != 0;
}

/// The largest magnitude among 16-bit encodings seen (sign bit cleared), in
/// the vector width of the SIMD path's 16-bit code registers: an encoding is
/// NaN or infinite exactly when its magnitude reaches the all-ones exponent
/// field (0x7C00 for fp16, 0x7F80 for bf16), so one AND and one unsigned max
/// per vector watch for them. Watch = false does nothing.
template <bool Watch>
struct code16_watch {
  u16v top{};
  NUMLAB_INLINE void see(u16v code) {
    if constexpr (Watch) {
      const u16v magnitude = code & 0x7FFF;
      top = magnitude > top ? magnitude : top;
    }
  }
  /// Whether a seen magnitude is at least `all_ones_exponent`.
  NUMLAB_INLINE bool reached(std::uint16_t all_ones_exponent) const {
    if constexpr (Watch) return any_lane(top >= all_ones_exponent);
    return false;
  }
};

/// One rounding of |x| (pattern a, integer significand m) with `s` bits cut off.
template <class D>
struct step {
  typename D::U magnitude;
  typename D::S inexact;
};

template <class D, rounding R>
NUMLAB_INLINE step<D> round_at(typename D::U a, typename D::U m, typename D::U s, typename D::S negative,
                               typename D::U word, typename D::U top_bits, typename D::U low_quantum) {
  using U = typename D::U;
  using B = bits_of<D>;
  constexpr int W = D::W;
  const U zero{};
  const U one = zero + 1;
  const U width = B::splat(W);
  // The discarded fraction f, left-aligned: f * 2^W, with a sticky bit for
  // whatever falls below the lane (only when more than W bits are cut).
  const auto within = s <= width;
  const U beyond = within ? zero : s - width;
  const U below = beyond > B::splat(W - 1) ? B::splat(W - 1) : beyond;
  U frac = within ? (m << ((width - s) & (W - 1))) : (m >> below);
  frac = s == zero ? zero : frac;
  const auto sticky = ~within & ((m & ((one << below) - one)) != zero);
  const auto inexact = (frac != zero) | sticky;
  // Cutting at most M bits keeps the pattern arithmetic valid; more leaves
  // nothing (the result is 0 or one low quantum).
  const auto keeps = s <= B::splat(D::M);
  const U cut = keeps ? s : B::splat(D::M);
  const U unit = one << cut;
  const auto lsb = keeps & (((m >> cut) & one) != zero);
  const auto half = (frac >> (W - 1)) != zero;
  typename D::S up;
  if constexpr (R == rounding::nearest_even) {
    up = half & (((frac << 1) != zero) | sticky | lsb);
  } else if constexpr (R == rounding::nearest_away) {
    up = half;
  } else if constexpr (R == rounding::toward_zero) {
    up = typename D::S{};
  } else if constexpr (R == rounding::toward_positive) {
    up = ~negative & inexact;
  } else if constexpr (R == rounding::toward_negative) {
    up = negative & inexact;
  } else if constexpr (R == rounding::to_odd) {
    up = inexact & ~lsb;
  } else {
    // floor(f * 2^r) + R >= 2^r, both terms kept in the top r bits of 32.
    const U top = (W == 32 ? frac : frac >> (W - 32)) & top_bits;
    up = (word & top_bits) > (top ^ B::splat(0xFFFFFFFFu));
  }
  const U rounded = keeps ? (a & ~(unit - one)) + (up ? unit : zero) : (up ? low_quantum : zero);
  return {rounded, inexact};
}

/// Per-lane tallies, reduced into a `tally` at the end of a chunk.
template <class D>
struct lane_counts {
  typename D::U inexact{}, underflow_to_zero{}, became_subnormal{}, overflowed{}, nan{}, raised{};

  void add_to(tally& t) const {
    std::uint64_t sums[6] = {};
    std::uint64_t bits = 0;
    for (int i = 0; i < static_cast<int>(sizeof inexact / sizeof inexact[0]); ++i) {
      sums[0] += inexact[i];
      sums[1] += underflow_to_zero[i];
      sums[2] += became_subnormal[i];
      sums[3] += overflowed[i];
      sums[4] += nan[i];
      bits |= raised[i];
    }
    t.counts.inexact += sums[0];
    t.counts.underflow_to_zero += sums[1];
    t.counts.became_subnormal += sums[2];
    t.counts.overflowed += sums[3];
    t.counts.nan += sums[4];
    t.raised |= static_cast<flags>(bits);
  }
};

/// The rounding of one vector of inputs into the plan's target, delivered in
/// the input's own domain (fp32 or fp64 pattern of the rounded value).
template <class D, rounding R>
struct rounder {
  using U = typename D::U;
  using B = bits_of<D>;
  U min_normal, half_min_normal, max_finite, low_quantum, overflow_positive, overflow_negative, infinity_result,
      nan_payload, normal_shift, low_shift_base, tiny_shift_base, top_bits;
  bool flush_inputs, flush_outputs, tiny_after_rounding, infinity_overflows, infinity_invalid;

  explicit rounder(const kernel_plan& plan) {
    const domain_constants& c = plan.domain;
    min_normal = B::splat(c.min_normal);
    half_min_normal = B::splat(c.half_min_normal);
    max_finite = B::splat(c.max_finite);
    low_quantum = B::splat(c.low_quantum);
    overflow_positive = B::splat(c.overflow_positive);
    overflow_negative = B::splat(c.overflow_negative);
    infinity_result = B::splat(c.infinity_result);
    nan_payload = B::splat(c.nan_payload);
    normal_shift = B::splat(static_cast<std::uint64_t>(c.normal_shift));
    low_shift_base = B::splat(static_cast<std::uint64_t>(c.low_shift_base));
    tiny_shift_base = B::splat(static_cast<std::uint64_t>(c.tiny_shift_base));
    top_bits = B::splat(random_word_top_bits(plan.spec.random_bits));
    flush_inputs = plan.flush_inputs;
    flush_outputs = plan.flush_outputs;
    tiny_after_rounding = plan.spec.tiny == tininess::after_rounding;
    infinity_overflows = any(plan.encoding.infinity_flags, flags::overflow);
    infinity_invalid = any(plan.encoding.infinity_flags, flags::invalid);
  }

  /// x: input patterns; word: random words (zero-extended in fp64 lanes).
  template <bool Counting>
  NUMLAB_INLINE U operator()(U x, U word, lane_counts<D>& counts) const {
    const U zero{};
    const U sign = x & B::sign;
    const U original = x ^ sign;
    U a = original;
    if (flush_inputs) a = a < B::splat(B::hidden) ? zero : a;
    const U exponent = a >> D::M;
    const auto is_subnormal_input = exponent == zero;
    const U effective_exponent = is_subnormal_input ? zero + 1 : exponent;
    const U m = is_subnormal_input ? a : (a & B::mantissa) | B::hidden;
    const auto negative = sign != zero;
    const auto normal_range = a >= min_normal;
    const U s = normal_range ? normal_shift : low_shift_base - effective_exponent;
    const step<D> r = round_at<D, R>(a, m, s, negative, word, top_bits, low_quantum);

    const auto finite = a < B::infinity;
    const auto overflow = finite & (r.magnitude > max_finite);
    U result = overflow ? (negative ? overflow_negative : overflow_positive) : r.magnitude;
    typename D::S flushed{};
    if (flush_outputs) {
      flushed = finite & ~overflow & (result != zero) & (result < min_normal);
      result = flushed ? zero : result;
    }
    const auto is_nan = a > B::infinity;
    const auto is_infinite = a == B::infinity;
    result = is_nan ? (a & nan_payload) | B::quiet_nan : result;
    result = is_infinite ? infinity_result : result;

    if constexpr (Counting) {
      typename D::S tiny = finite & (a < min_normal);
      if (tiny_after_rounding) {
        // Tiny unless rounding at full precision (unbounded exponent) carries
        // into 2^emin; only [2^(emin-1), 2^emin) can.
        const U s_full = tiny_shift_base - effective_exponent;
        const U cut = s_full > tiny_shift_base ? zero : s_full;  // negative shifts clamp to 0
        const step<D> wide = round_at<D, R>(a, m, cut, negative, word, top_bits, low_quantum);
        tiny = tiny & ~((a >= half_min_normal) & (wide.magnitude >= min_normal));
      }
      const typename D::S none{};
      const auto infinity_overflow = infinity_overflows ? is_infinite : none;
      const auto inexact = (finite & r.inexact) | overflow | flushed | infinity_overflow;
      const auto underflow = (tiny & r.inexact) | flushed;
      const auto overflowed = overflow | infinity_overflow;
      const auto invalid = (is_nan & ((a & (B::hidden >> 1)) == zero)) | (infinity_invalid ? is_infinite : none);
      const U one = zero + 1;
      counts.inexact += one & inexact;
      counts.overflowed += one & overflowed;
      counts.nan += one & (result > B::infinity);
      counts.underflow_to_zero += one & ((original != zero) & (original < B::infinity) & (result == zero));
      counts.became_subnormal += one & ((result != zero) & (result < min_normal));
      counts.raised |= (inexact & B::splat(1)) | (underflow & B::splat(2)) | (overflowed & B::splat(4)) |
                       (invalid & B::splat(16));
    }
    return result | sign;
  }
};

/// Target encodings of rounded values given in domain D (values of the
/// target, ±inf or NaN).
template <class D>
struct encoder {
  using U = typename D::U;
  using B = bits_of<D>;
  U min_normal, subnormal_shift_base, normal_rebias, exponent_all_ones, nan_all_ones, sign_mask;
  int fraction_shift;
  bool ieee_nans;

  explicit encoder(const kernel_plan& plan) {
    const domain_constants& c = plan.domain;
    const encoding_constants& e = plan.encoding;
    min_normal = B::splat(c.min_normal);
    subnormal_shift_base = B::splat(static_cast<std::uint64_t>(c.subnormal_shift_base));
    normal_rebias = B::splat(c.normal_rebias);
    exponent_all_ones = B::splat(e.exponent_all_ones);
    nan_all_ones = B::splat(e.nan_all_ones);
    sign_mask = B::splat(e.sign_mask);
    fraction_shift = D::M - e.fraction_bits;
    ieee_nans = e.ieee_nans;
  }

  /// The codes, one 32-bit lane per lane of U (u32v for fp32, u32h for fp64).
  NUMLAB_INLINE auto operator()(U value) const {
    const U zero{};
    const U sign = value & B::sign;
    const U a = value ^ sign;
    const U exponent = a >> D::M;
    const auto is_subnormal_input = exponent == zero;
    const U effective_exponent = is_subnormal_input ? zero + 1 : exponent;
    const U m = is_subnormal_input ? a : (a & B::mantissa) | B::hidden;
    const U shift = subnormal_shift_base - effective_exponent;
    const U subnormal = m >> (shift > B::splat(D::W - 1) ? B::splat(D::W - 1) : shift);
    const U normal = (a - normal_rebias) >> fraction_shift;
    const U nan = ieee_nans ? exponent_all_ones | ((a & B::mantissa) >> fraction_shift) : nan_all_ones;
    U code = a >= min_normal ? normal : subnormal;
    code = a == B::infinity ? exponent_all_ones : code;
    code = a > B::infinity ? nan : code;
    code |= sign != zero ? sign_mask : zero;
    if constexpr (D::W == 32) {
      return code;
    } else {
      return __builtin_convertvector(code, u32h);
    }
  }
};

/// fp32 patterns of target encodings.
struct decoder {
  u32v width_mask, sign_mask, fraction_mask, exponent_all_ones, nan_all_ones, rebias, scale_down, scale_threshold;
  int fraction_shift, fraction_bits, linear_shift;
  bool ieee_nans, subnormals, flush;

  decoder(const kernel_plan& plan, bool flush_subnormals) {
    const encoding_constants& e = plan.encoding;
    width_mask = u32v{} + e.width_mask;
    sign_mask = u32v{} + e.sign_mask;
    fraction_mask = u32v{} + e.fraction_mask;
    exponent_all_ones = u32v{} + e.exponent_all_ones;
    nan_all_ones = u32v{} + e.nan_all_ones;
    rebias = u32v{} + e.decode_rebias;
    scale_down = u32v{} + e.decode_scale_down;
    scale_threshold = scale_down + (std::uint32_t{1} << 23);
    fraction_bits = e.fraction_bits;
    fraction_shift = 23 - e.fraction_bits;
    linear_shift = e.decode_linear_shift;
    ieee_nans = e.ieee_nans;
    subnormals = e.subnormals && !flush_subnormals;
    flush = flush_subnormals;
  }

  NUMLAB_INLINE u32v operator()(u32v code) const {
    const u32v zero{};
    code &= width_mask;
    const u32v sign = (code & sign_mask) != zero ? zero + 0x80000000u : zero;
    const u32v a = code & ~sign_mask;
    const u32v fraction = a & fraction_mask;
    const u32v exponent = a >> fraction_bits;
    u32v value = (a << fraction_shift) + rebias;
    if (subnormals) {
      // float(fraction) is exact; scale it down by the exponent field, or by
      // a shift where the value is an fp32 subnormal.
      const u32v as_float = (u32v)__builtin_convertvector((i32v)fraction, f32v);
      const u32v scaled = as_float >= scale_threshold ? as_float - scale_down : fraction << linear_shift;
      value = exponent == zero ? scaled : value;
    } else {
      value = exponent == zero ? zero : value;
    }
    if (ieee_nans) {
      const auto top = exponent == (exponent_all_ones >> fraction_bits);
      value = top ? (fraction == zero ? zero + 0x7F800000u : (fraction << fraction_shift) | 0x7FC00000u) : value;
    } else {
      value = a == nan_all_ones ? zero + 0x7FC00000u : value;
    }
    return value | sign;
  }
};

/// Stores n (<= lanes) encodings of `width` bytes.
NUMLAB_INLINE void store_codes(void* out, u32v code, int width, std::size_t n) {
  if (width == 1) {
    const u8v c = __builtin_convertvector(code, u8v);
    __builtin_memcpy(out, &c, n);
  } else if (width == 2) {
    const u16v c = __builtin_convertvector(code, u16v);
    __builtin_memcpy(out, &c, 2 * n);
  } else {
    __builtin_memcpy(out, &code, 4 * n);
  }
}

NUMLAB_INLINE u32v load_codes(const void* in, int width, std::size_t n) {
  if (width == 1) {
    u8v c{};
    __builtin_memcpy(&c, in, n);
    return __builtin_convertvector(c, u32v);
  }
  if (width == 2) {
    u16v c{};
    __builtin_memcpy(&c, in, 2 * n);
    return __builtin_convertvector(c, u32v);
  }
  u32v c{};
  __builtin_memcpy(&c, in, 4 * n);
  return c;
}

/// Rounds, encodes or decodes one chunk with lane vectors; R fixed at compile time.
template <class D, rounding R, bool Counting>
void round_chunk(const kernel_plan& plan, const chunk& c, tally& t) {
  using U = typename D::U;
  using B = bits_of<D>;
  using value = typename D::value;
  constexpr bool stochastic = R == rounding::stochastic;
  constexpr std::size_t block = 4 * lanes;
  const rounder<D, R> round(plan);
  const encoder<D> encode(plan);
  const decoder decode(plan, false);
  const bool values = plan.op == operation::round_f32 || plan.op == operation::round_f64;
  const auto* in = static_cast<const value*>(c.in);
  auto* out = static_cast<unsigned char*>(c.out);
  const std::size_t out_size = values ? 4 : static_cast<std::size_t>(plan.width);
  lane_counts<D> counts;
  // Lanes that have held a NaN or infinite result: one compare and one OR
  // per vector, so callers never rescan the output for them.
  typename D::S non_finite{};
  alignas(64) std::uint32_t words[block] = {};
  const bool fp32_prefix = plan.encoding.fp32_prefix;
  const bool is_binary16 = plan.encoding.is_binary16;
  const int prefix_shift = 23 - plan.encoding.fraction_bits;

  // fp64: the codes of n <= lanes / 2 elements from element i, words at w.
  auto half_codes = [&](std::size_t i, const std::uint32_t* w, std::size_t n) __attribute__((always_inline)) {
    if constexpr (D::W == 64) {
      U x{};
      __builtin_memcpy(&x, in + i, n * sizeof(value));
      U word{};
      if constexpr (stochastic) word = __builtin_convertvector(load_vector<u32h>(w), u64h);
      const U r = round.template operator()<Counting>(x, word, counts);
      non_finite |= (r & ~B::sign) >= B::infinity;
      return encode(r);
    } else {
      return u32h{};
    }
  };
  // One vector of n <= lanes elements starting at element i, words at w.
  auto one_vector = [&](std::size_t i, const std::uint32_t* w, std::size_t n) __attribute__((always_inline)) {
    u32v code;
    if constexpr (D::W == 32) {
      U x{};
      __builtin_memcpy(&x, in + i, n * sizeof(value));
      const U word = stochastic ? load_vector<u32v>(w) : U{};
      const U r = round.template operator()<Counting>(x, word, counts);
      non_finite |= (r & ~B::sign) >= B::infinity;
      if (values) {
        __builtin_memcpy(out + i * 4, &r, 4 * n);
        return;
      }
      // Rounded fp32 values of the format encode exactly by a shift or by
      // the CPU's conversion, far cheaper than the general encoder.
      if (fp32_prefix) {
        code = r >> prefix_shift;
      } else if (exact_fp16_encode_available && is_binary16) {
        code = exact_fp16_encode(r);
      } else {
        code = encode(r);
      }
    } else {
      constexpr std::size_t half = lanes / 2;
      const u32h low = half_codes(i, w, n < half ? n : half);
      const u32h high = n > half ? half_codes(i + half, w + half, n - half) : u32h{};
      __builtin_memcpy(&code, &low, sizeof low);
      __builtin_memcpy(reinterpret_cast<unsigned char*>(&code) + sizeof low, &high, sizeof high);
    }
    if (values) {
      const u32v v = decode(code);
      __builtin_memcpy(out + i * 4, &v, 4 * n);
    } else {
      store_codes(out + i * out_size, code, plan.width, n);
    }
  };
  // A partial stretch of n < block elements, one vector at a time.
  auto partial = [&](std::size_t i, std::size_t n) {
    for (std::size_t done = 0; done < n; done += lanes) {
      const std::size_t k = n - done < lanes ? n - done : lanes;
      if constexpr (stochastic) fill_random_words(plan, c.first_index + i + done, words, k);
      one_vector(i + done, words, k);
    }
  };

  std::size_t i = 0;
  if constexpr (stochastic) {
    // Align positions to Philox blocks so the vector generator can run.
    std::size_t head = static_cast<std::size_t>((draw_alignment - c.first_index % draw_alignment) % draw_alignment);
    head = head < c.n ? head : c.n;
    partial(0, head);
    i = head;
  }
  std::size_t since_flush = 0;
  for (; i + block <= c.n; i += block) {
    if constexpr (stochastic) philox_words(plan, c.first_index + i, words);
    for (std::size_t v = 0; v < 4; ++v) one_vector(i + v * lanes, words + v * lanes, lanes);
    if constexpr (Counting) {
      // Flush before 32-bit lane counters could wrap.
      if (++since_flush == (std::size_t{1} << 24)) {
        counts.add_to(t);
        counts = {};
        since_flush = 0;
      }
    }
  }
  partial(i, c.n - i);
  if constexpr (Counting) counts.add_to(t);
  t.non_finite = t.non_finite || any_lane(non_finite);
}

template <class D, rounding R>
void round_chunk_counting(const kernel_plan& plan, const chunk& c, tally& t) {
  if (plan.want_counts) {
    round_chunk<D, R, true>(plan, c, t);
  } else {
    round_chunk<D, R, false>(plan, c, t);
  }
}

template <class D>
void round_chunk_any_mode(const kernel_plan& plan, const chunk& c, tally& t) {
  switch (plan.spec.mode) {
    case rounding::nearest_even: return round_chunk_counting<D, rounding::nearest_even>(plan, c, t);
    case rounding::nearest_away: return round_chunk_counting<D, rounding::nearest_away>(plan, c, t);
    case rounding::toward_zero: return round_chunk_counting<D, rounding::toward_zero>(plan, c, t);
    case rounding::toward_positive: return round_chunk_counting<D, rounding::toward_positive>(plan, c, t);
    case rounding::toward_negative: return round_chunk_counting<D, rounding::toward_negative>(plan, c, t);
    case rounding::to_odd: return round_chunk_counting<D, rounding::to_odd>(plan, c, t);
    case rounding::stochastic: return round_chunk_counting<D, rounding::stochastic>(plan, c, t);
  }
}

// Code width fixed at compile time and whole vectors copied with constant-size
// copies, which compile to single vector loads and stores; only the last
// partial vector takes the variable-size copy. (A runtime width and a
// variable-size copy on every vector made decoding ~100x slower than encoding.)
template <int Width>
void decode_chunk_of_width(const decoder& decode, const unsigned char* in, float* out, std::size_t n) {
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const u32v v = decode(load_codes(in + i * Width, Width, lanes));
    __builtin_memcpy(out + i, &v, sizeof v);
  }
  if (i < n) {
    const u32v v = decode(load_codes(in + i * Width, Width, n - i));
    __builtin_memcpy(out + i, &v, 4 * (n - i));
  }
}

void decode_chunk(const kernel_plan& plan, const chunk& c) {
  const decoder decode(plan, plan.flush_inputs);
  const auto* in = static_cast<const unsigned char*>(c.in);
  auto* out = static_cast<float*>(c.out);
  switch (plan.width) {
    case 1: return decode_chunk_of_width<1>(decode, in, out, c.n);
    case 2: return decode_chunk_of_width<2>(decode, in, out, c.n);
    default: return decode_chunk_of_width<4>(decode, in, out, c.n);
  }
}

/// The portable algorithm for any plan.
tally run_lanes(const kernel_plan& plan, const chunk& c) {
  tally t;
  switch (plan.op) {
    case operation::encode_f32:
    case operation::round_f32: round_chunk_any_mode<f32_domain>(plan, c, t); break;
    case operation::encode_f64:
    case operation::round_f64: round_chunk_any_mode<f64_domain>(plan, c, t); break;
    case operation::decode: decode_chunk(plan, c); break;
  }
  return t;
}

}  // namespace
}  // namespace num::kernels
