// A quantize call with its outputs gathered, for the scaled-format tests.
#pragma once

#include <cstdint>
#include <libnum/scaled_array.hpp>
#include <vector>

namespace scaled_test {

struct quantized {
  std::vector<std::uint8_t> elements;
  std::vector<std::uint32_t> scales;
  num::scaled_result result;
  std::vector<std::uint32_t> codes;  ///< element codes, one per element, from either layout
  std::vector<float> decoded;        ///< dequantize() of the above
};

inline quantized run(const std::vector<float>& in, const num::scaled_options& o, num::tensor_shape shape = {}) {
  if (shape.cols == 0) shape = {1, in.size()};
  quantized q;
  // Not zeros: quantize writes every byte whatever the array held (packed
  // layouts OR codes into place, so a path that skipped zeroing would show).
  q.elements.assign(num::element_bytes(o.format.element, o.layout, in.size()), 0xA5);
  q.scales.resize(num::scale_count(o.format, shape));
  q.result = num::quantize(in, shape, q.elements, q.scales, o);
  for (std::size_t i = 0; i < in.size(); ++i)
    q.codes.push_back(num::element_code_at(q.elements, o.format.element, o.layout, i));
  q.decoded.resize(in.size());
  num::dequantize(q.elements, q.scales, q.result.tensor_scale, shape, q.decoded, o);
  return q;
}

/// A rounding mode with its r (stochastic rounding's random bits).
struct mode_case {
  num::rounding mode;
  int r;
};
/// Every mode, stochastic with several r, for comparisons with the reference.
inline constexpr mode_case reference_modes[] = {
    {num::rounding::nearest_even, 32},    {num::rounding::nearest_away, 32}, {num::rounding::toward_zero, 32},
    {num::rounding::toward_positive, 32}, {num::rounding::toward_negative, 32}, {num::rounding::to_odd, 32},
    {num::rounding::stochastic, 32},      {num::rounding::stochastic, 1},      {num::rounding::stochastic, 3},
    {num::rounding::stochastic, 13}};

inline num::scaled_options options_for(const char* name) {
  num::scaled_options o;
  o.format = num::parse_scaled_format(name);
  return o;
}

}  // namespace scaled_test
