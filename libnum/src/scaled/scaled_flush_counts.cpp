// Flushes under a per-tensor scale, counted as a block scale's (scaled_flush_counts.hpp).
#include "libnum/scaled_flush_counts.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "libnum/scaled_format.hpp"

namespace num {
namespace {

// Whether quantize() puts x, alone in a block of `lone`'s rule, to a nonzero
// element (its random word the one of index `index` in the tensor).
bool lone_scale_holds(float x, std::uint64_t index, const scaled_options& lone) {
  scaled_options o = lone;
  o.first_index = index;
  std::array<std::uint8_t, 1> code{};
  std::array<std::uint32_t, 1> scale{};
  quantize(std::span<const float>(&x, 1), {1, 1}, code, scale, o);
  return element_value(o.format.element, code[0]) != 0.0;
}

}  // namespace

void count_flushes_as_block_underflow(std::span<const float> in, std::span<const float> dequantized,
                                      const scaled_options& given, scale_rule rule, scaled_counts& counts) {
  if (in.size() != dequantized.size())
    throw std::invalid_argument("count_flushes_as_block_underflow: " + std::to_string(in.size()) + " inputs but " +
                                std::to_string(dequantized.size()) + " dequantized values");
  if (given.format.rule != scale_rule::fp32_given)
    throw std::invalid_argument("count_flushes_as_block_underflow: the quantization's scale rule is " +
                                std::string(scale_rule_name(given.format.rule)) + ", not fp32-given");
  if (counts.underflow_to_zero == 0) return;
  scaled_options lone = given;
  lone.format.rule = rule;
  lone.layout = element_layout::byte_per_element;
  // An element is flushed where its code is zero, which is where its
  // dequantized value is zero: a flush needs x / s below the smallest
  // nonzero element e with |x| >= 2^-149, so s·e > 2^-149, and every nonzero
  // code times s then rounds to a nonzero fp32.
  //
  // With margin 0 the rule's own scale puts a lone x at the top of the
  // element range unless that scale underflows fp32, which it cannot above
  // max_elem · 2^-100 (a wide safety band; quantize() decides below it).
  const double surely_held_above =
      given.margin == 0 ? element_max(given.format.element) * 0x1p-100 : INFINITY;
  // This runs on every quantized operand of every step. With margin 0 a
  // flush is held unless the input is at or below the band, so when no input
  // is (the usual case) every counted flush is held, and one vectorizable
  // pass over the inputs' bits decides it; otherwise quantize() decides each
  // flush, in index order, up to counts.underflow_to_zero of them.
  if (given.margin == 0) {
    const auto band_bits = std::bit_cast<std::uint32_t>(static_cast<float>(surely_held_above));
    std::uint64_t in_band = 0;
    for (const float x : in) {
      const std::uint32_t magnitude = std::bit_cast<std::uint32_t>(x) & 0x7fffffffu;
      in_band += static_cast<std::uint64_t>(magnitude != 0 && magnitude <= band_bits);
    }
    if (in_band == 0) {
      counts.block_underflow += counts.underflow_to_zero;
      counts.underflow_to_zero = 0;
      return;
    }
  }
  std::uint64_t flushed = 0, held = 0;
  for (std::size_t i = 0; i < in.size() && flushed < counts.underflow_to_zero; ++i) {
    const float x = in[i];
    if (x == 0.0f || !std::isfinite(x) || dequantized[i] != 0.0f) continue;
    ++flushed;
    if (std::fabs(static_cast<double>(x)) > surely_held_above || lone_scale_holds(x, given.first_index + i, lone))
      ++held;
  }
  counts.block_underflow += held;
  counts.underflow_to_zero -= held;
}

}  // namespace num
