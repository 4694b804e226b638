// The oracle's last step: a binary32 or binary64 value that is the exact result
// rounded to odd, rounded once more into a 16-bit format, with the flags of that result.
// Written here in integer bit operations rather than taken from libnum, whose
// rounding is what the oracle certifies.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>

#include "certify/oracle.hpp"

namespace certify::detail {

/// The parameters of a 16-bit target that the last rounding needs.
struct target16 {
  int precision;               ///< p, with the hidden bit
  int emin;                    ///< exponent of the smallest normal number
  std::uint32_t infinity;      ///< encoding of +inf (all-ones exponent field)
  std::uint32_t quiet_bit;     ///< top fraction bit, set in quiet NaNs
};

inline constexpr target16 fp16_target{11, -14, 0x7C00, 0x0200};
inline constexpr target16 bf16_target{8, -126, 0x7F80, 0x0040};

constexpr const target16& target_of(format16 f) { return f == format16::fp16 ? fp16_target : bf16_target; }

/// sig * 2^e2 (0 < sig < 2^53) cut at the quantum 2^(e2 + shift), shift >= 1, and
/// rounded in direction d: the kept integer after rounding; `inexact` says
/// whether anything nonzero was cut off.
constexpr std::uint64_t round_at(std::uint64_t sig, int shift, direction d, bool negative, bool& inexact) {
  shift = std::min(shift, 60);  // sig < 2^53: beyond that everything is below half a quantum
  const std::uint64_t kept = sig >> shift;
  const std::uint64_t rest = sig & ((std::uint64_t{1} << shift) - 1);
  const std::uint64_t half = std::uint64_t{1} << (shift - 1);
  inexact = rest != 0;
  switch (d) {
    case direction::nearest_even: return kept + (rest > half || (rest == half && (kept & 1) != 0));
    case direction::nearest_away: return kept + (rest >= half);
    case direction::toward_zero: return kept;
    case direction::toward_positive: return kept + (inexact && !negative);
    case direction::toward_negative: return kept + (inexact && negative);
    case direction::to_odd: return kept | (inexact ? 1 : 0);
  }
  return kept;
}

/// The encoding of |x| when x overflows t in direction d (IEEE 754 7.4).
constexpr std::uint32_t overflow_magnitude(const target16& t, direction d, bool negative) {
  const std::uint32_t max_finite = t.infinity - 1;
  switch (d) {
    case direction::nearest_even:
    case direction::nearest_away: return t.infinity;
    case direction::toward_positive: return negative ? max_finite : t.infinity;
    case direction::toward_negative: return negative ? t.infinity : max_finite;
    case direction::toward_zero:
    case direction::to_odd: return max_finite;
  }
  return max_finite;
}

struct result16 {
  std::uint16_t bits;
  std::uint8_t flags;
};

/// The binary intermediate format the operations are computed in: binary32
/// for fp16, binary64 for bf16 (docs/certify.md says why).
struct wide_format {
  int fraction_bits;
  int bias;
  std::uint64_t sign;      ///< sign bit
  std::uint64_t infinity;  ///< encoding of +inf
};

inline constexpr wide_format binary32_wide{23, 127, std::uint64_t{1} << 31, 0x7F800000};
inline constexpr wide_format binary64_wide{52, 1023, std::uint64_t{1} << 63, 0x7FF0000000000000};

/// Rounds the nonzero finite value with encoding `odd` in w (the exact result
/// rounded to odd in w) into t in direction d.
constexpr result16 round_to_target(const target16& t, const wide_format& w, direction d, std::uint64_t odd) {
  const bool negative = (odd & w.sign) != 0;
  const std::uint64_t magnitude = odd & ~w.sign;
  const std::uint64_t hidden = std::uint64_t{1} << w.fraction_bits;
  const int field = static_cast<int>(magnitude >> w.fraction_bits);
  // odd = sig * 2^e2 exactly, sig < 2^53.
  const std::uint64_t sig = field != 0 ? (magnitude & (hidden - 1)) | hidden : magnitude;
  const int e2 = (field != 0 ? field : 1) - w.bias - w.fraction_bits;
  const int lead = e2 + 63 - __builtin_clzll(sig);  // exponent of the leading bit
  const int p = t.precision;
  // Quantum of t at this magnitude; it is always >= 2^(e2+13) (docs/certify.md).
  const int quantum = std::max(lead, t.emin) - (p - 1);
  bool inexact = false;
  const std::uint64_t kept = round_at(sig, quantum - e2, d, negative, inexact);
  // The quantum's binade times 2^(p-1), plus the significand with its hidden
  // bit, is the encoding; a carry out of the significand moves into the exponent.
  const std::uint64_t magnitude16 = (static_cast<std::uint64_t>(std::max(lead, t.emin) - t.emin) << (p - 1)) + kept;
  const std::uint16_t sign = negative ? 0x8000 : 0;
  if (magnitude16 >= t.infinity) {
    return {static_cast<std::uint16_t>(sign | overflow_magnitude(t, d, negative)),
            static_cast<std::uint8_t>(flag::overflow | flag::inexact)};
  }
  std::uint8_t flags = inexact ? flag::inexact : 0;
  if (inexact && lead < t.emin) {
    flags |= flag::underflow_before;
    // Tiny after rounding unless rounding to p bits with an unbounded exponent
    // carries a value in [2^(emin-1), 2^emin) up to 2^emin.
    bool unused = false;
    const bool reaches_normal =
        lead == t.emin - 1 && round_at(sig, lead - (p - 1) - e2, d, negative, unused) == (std::uint64_t{1} << p);
    if (!reaches_normal) flags |= flag::underflow;
  }
  return {static_cast<std::uint16_t>(sign | magnitude16), flags};
}

constexpr bool is_nan(const target16& t, std::uint32_t x) { return (x & 0x7FFF) > t.infinity; }
constexpr bool is_signaling(const target16& t, std::uint32_t x) { return is_nan(t, x) && (x & t.quiet_bit) == 0; }
constexpr bool is_zero(std::uint32_t x) { return (x & 0x7FFF) == 0; }
constexpr bool is_finite(const target16& t, std::uint32_t x) { return (x & 0x7FFF) < t.infinity; }
constexpr bool is_infinite(const target16& t, std::uint32_t x) { return (x & 0x7FFF) == t.infinity; }

/// The result when a NaN operand decides it, or fma's inf * 0 + c; nullopt
/// otherwise. Operands that op does not take must be passed as 0.
constexpr std::optional<result16> nan_operand_result(const target16& t, operation op, std::uint32_t a,
                                                     std::uint32_t b, std::uint32_t c) {
  const auto quiet = [&t](std::uint32_t x) { return static_cast<std::uint16_t>(x | t.quiet_bit); };
  const bool signaling = is_signaling(t, a) || is_signaling(t, b) || is_signaling(t, c);
  const std::uint8_t raised = signaling ? flag::invalid : 0;
  if (is_nan(t, a) || is_nan(t, b)) return result16{quiet(is_nan(t, a) ? a : b), raised};
  if (op == operation::fma &&
      ((is_infinite(t, a) && is_zero(b)) || (is_zero(a) && is_infinite(t, b)))) {
    return result16{is_nan(t, c) ? quiet(c) : quiet(t.infinity), flag::invalid};
  }
  if (is_nan(t, c)) return result16{quiet(c), raised};
  return std::nullopt;
}

/// The result of op(a, b) in direction d (sqrt(b); fma(a, b, c)), given the
/// encodings in w of the same operation rounded down (`down`) and up (`up`).
constexpr result16 finish(const target16& t, const wide_format& w, operation op, direction d, row_operands row,
                          std::uint32_t b, std::uint64_t down, std::uint64_t up) {
  const std::uint32_t a = op == operation::sqrt ? 0 : row.a;
  const std::uint32_t c = op == operation::fma ? row.c : 0;
  if (const auto r = nan_operand_result(t, op, a, b, c)) return *r;
  if ((down & ~w.sign) > w.infinity) return {static_cast<std::uint16_t>(t.infinity | t.quiet_bit), flag::invalid};
  const std::uint16_t sign_of_up = (up & w.sign) != 0 ? 0x8000 : 0;
  if (((down | up) & ~w.sign) == 0) {
    // An exact zero; only a sum of opposite zeros or opposites rounds its sign.
    const std::uint16_t sign_of_down = (down & w.sign) != 0 ? 0x8000 : 0;
    return {d == direction::toward_negative ? sign_of_down : sign_of_up, 0};
  }
  if (down == up && (down & ~w.sign) == w.infinity) {
    // An exact infinity: from an infinite operand, or a finite nonzero divided by zero.
    const bool by_zero = op == operation::div && is_finite(t, a) && !is_zero(a) && is_zero(b);
    return {static_cast<std::uint16_t>(sign_of_up | t.infinity), by_zero ? flag::divide_by_zero : std::uint8_t{0}};
  }
  // Round to odd: the result truncated toward zero, its last bit set when inexact.
  const std::uint64_t toward_zero = (down & w.sign) != 0 ? up : down;
  const std::uint64_t odd = down == up ? down : toward_zero | 1;
  return round_to_target(t, w, d, odd);
}

}  // namespace certify::detail
