// libnum's side of a certification: its scalar core on one row of operand
// pairs. (libnum's array kernels convert and round arrays but have no
// arithmetic, so the scalar core is what there is to certify.)
#include <libnum/arithmetic.hpp>
#include <libnum/format.hpp>

#include <stdexcept>

#include "certify/certificate.hpp"

namespace certify {
namespace {

static_assert(static_cast<int>(num::flags::inexact) == flag::inexact &&
              static_cast<int>(num::flags::underflow) == flag::underflow &&
              static_cast<int>(num::flags::overflow) == flag::overflow &&
              static_cast<int>(num::flags::divide_by_zero) == flag::divide_by_zero &&
              static_cast<int>(num::flags::invalid) == flag::invalid);

num::rounding libnum_rounding(direction d) {
  switch (d) {
    case direction::nearest_even: return num::rounding::nearest_even;
    case direction::nearest_away: return num::rounding::nearest_away;
    case direction::toward_zero: return num::rounding::toward_zero;
    case direction::toward_positive: return num::rounding::toward_positive;
    case direction::toward_negative: return num::rounding::toward_negative;
    case direction::to_odd: return num::rounding::to_odd;
  }
  throw std::invalid_argument("certify: unknown rounding direction");
}

// One call yields the result and the flags under both tininess rules.
num::rounded_per_tininess evaluate(operation op, const num::format& f, row_operands row, std::uint32_t b,
                                   const num::round_spec& spec) {
  const std::uint32_t a = row.a;
  switch (op) {
    case operation::add: return num::add_per_tininess(f, a, b, spec);
    case operation::sub: return num::sub_per_tininess(f, a, b, spec);
    case operation::mul: return num::mul_per_tininess(f, a, b, spec);
    case operation::div: return num::div_per_tininess(f, a, b, spec);
    case operation::sqrt: return num::sqrt_per_tininess(f, b, spec);
    case operation::fma: return num::fma_per_tininess(f, a, b, row.c, spec);
  }
  throw std::invalid_argument("certify: unknown operation");
}

}  // namespace

void libnum_row(const job& j, row_operands row, std::span<std::uint16_t> bits, std::span<std::uint8_t> flags) {
  if (bits.size() != row_length || flags.size() != row_length) {
    throw std::invalid_argument("certify: a row needs spans of 65536 results and flags");
  }
  const num::format& f = j.format == format16::fp16 ? num::binary16 : num::bfloat16_format;
  num::round_spec spec{};
  spec.mode = libnum_rounding(j.mode);
  constexpr auto underflow = static_cast<std::uint8_t>(num::flags::underflow);
  for (std::uint32_t b = 0; b < row_length; ++b) {
    const num::rounded_per_tininess r = evaluate(j.op, f, row, b, spec);
    auto byte = static_cast<std::uint8_t>(r.after_rounding);
    const auto byte_before = static_cast<std::uint8_t>(r.before_rounding);
    if ((byte_before & ~underflow) != (byte & ~underflow)) byte |= rules_disagree;
    if ((byte_before & underflow) != 0) byte |= flag::underflow_before;
    bits[b] = static_cast<std::uint16_t>(r.bits);
    flags[b] = byte;
  }
}

}  // namespace certify
