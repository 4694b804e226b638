// The reference's block scales and whole-tensor quantization (see
// scaled_reference.hpp), from the spec text in rational arithmetic.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <libnum/philox.hpp>
#include <libnum/scaled_array.hpp>
#include <vector>

#include "scaled_reference.hpp"

namespace scaled_ref {

/// A scale: its code and its exact value (0 for an NVFP4 block scale that
/// rounded to zero).
struct scale_out {
  std::uint32_t code = 0;
  rational value = 1;
  bool under = false, over = false;
};

inline rational element_max_of(num::element_type t) { return cached_magnitudes(spec_of(t)).back().value; }

/// emax_elem (MX §6.3): the exponent of the element type's largest normal (INT8: 0).
inline int emax_of(num::element_type t) { return floor_log2(element_max_of(t)); }

inline scale_out e8m0(int w) {
  scale_out s;
  if (w < -127) {
    w = -127;
    s.under = true;
  }
  if (w > 127) {
    w = 127;
    s.over = true;
  }
  s.code = static_cast<std::uint32_t>(w + 127);
  s.value = pow2(w);
  return s;
}

/// Smallest w with max_elem · 2^w >= a.
inline int ceil_exponent(const rational& a, const rational& max_elem) {
  int w = floor_log2(a / max_elem);
  if (max_elem * pow2(w) < a) ++w;
  return w;
}

inline scale_out fp32_scale(const rational& v) {
  scale_out s;
  s.value = v;
  s.code = std::bit_cast<std::uint32_t>(to_float(v));
  return s;
}

/// The scale a rule gives a block of largest finite magnitude amax.
inline scale_out block_scale(const num::scaled_options& o, const rational& amax, const rational& tensor_scale) {
  const num::element_type t = o.format.element;
  const rational max_elem = element_max_of(t);
  switch (o.format.rule) {
    case num::scale_rule::mx_floor:
      if (amax == 0) return e8m0(-127);
      return e8m0(floor_log2(amax) - emax_of(t));
    case num::scale_rule::mx_rceil:
      if (amax == 0) return e8m0(-127);
      return e8m0(ceil_exponent(amax, max_elem));
    case num::scale_rule::mx_even: {
      if (amax == 0) return e8m0(-127);
      // amax rounded to the element's significand width, ties away.
      const int p = t == num::element_type::int8 ? 7 : spec_of(t).mantissa_bits + 1;
      const rational quantum = pow2(floor_log2(amax) - (p - 1));
      const mpz_class k = floor_of(amax / quantum + rational(1, 2));
      return e8m0(floor_log2(rational(k) * quantum) - emax_of(t));
    }
    case num::scale_rule::nvfp4: {
      scale_out s;
      if (amax == 0) {
        s.value = 0;
        return s;
      }
      const element_out e = round_to_element(spec_of(num::element_type::e4m3), amax / (6 * tensor_scale),
                                             num::rounding::nearest_even, 32, 0);
      s.code = e.code;
      s.over = e.saturated;
      s.value = *value_of(spec_of(num::element_type::e4m3), e.code) * tensor_scale;
      if (e.zero) {
        s.under = true;
        s.value = 0;
      }
      return s;
    }
    case num::scale_rule::fp32_amax: {
      if (amax == 0) return fp32_scale(1);
      const rational v = round_binary_nearest_even(amax * pow2(o.margin) / max_elem, 24, -126);
      if (v == 0) {
        scale_out s = fp32_scale(pow2(-149));
        s.under = true;
        return s;
      }
      return fp32_scale(v);
    }
    case num::scale_rule::fp32_amax_pow2:
      if (amax == 0) return fp32_scale(1);
      return fp32_scale(pow2(ceil_exponent(amax * pow2(o.margin), max_elem)));
    case num::scale_rule::fp32_given: return fp32_scale(of_float(o.given_scale));
  }
  return {};
}

/// NVFP4's tensor scale: amax / 2688 rounded to nearest-even fp32 (1 for 0).
inline rational nvfp4_tensor_scale(const rational& amax) {
  if (amax == 0) return 1;
  const rational s = round_binary_nearest_even(amax / 2688, 24, -126);
  return s == 0 ? pow2(-149) : s;
}

/// The index, in quantize()'s scale array, of the block holding element i
/// (row-major blocks of min(block, shape) elements, as quantize() below
/// walks them).
inline std::size_t block_index_of(const num::scaled_format& f, num::tensor_shape shape, std::size_t i) {
  const std::size_t tr = std::min(f.block.rows, shape.rows), tc = std::min(f.block.cols, shape.cols);
  const std::size_t block_cols = (shape.cols + tc - 1) / tc;
  return (i / shape.cols / tr) * block_cols + (i % shape.cols) / tc;
}

/// The reference's quantization of a whole tensor (byte-per-element codes).
struct tensor_out {
  std::vector<std::uint32_t> codes;
  std::vector<std::uint32_t> scales;
  std::vector<element_out> elements;
  rational tensor_scale = 1;
  num::scaled_counts counts;
};

inline tensor_out quantize(const std::vector<float>& in, num::tensor_shape shape, const num::scaled_options& o) {
  tensor_out out;
  out.codes.assign(in.size(), 0);
  out.elements.assign(in.size(), {});
  const element_spec es = spec_of(o.format.element);
  if (o.format.rule == num::scale_rule::nvfp4) {
    rational amax = 0;
    for (float x : in)
      if (std::isfinite(x)) amax = std::max(amax, of_float(std::fabs(x)));
    if (!std::isnan(o.tensor_amax)) amax = of_float(o.tensor_amax);
    out.tensor_scale = nvfp4_tensor_scale(amax);
  }
  const std::size_t tr = std::min(o.format.block.rows, shape.rows), tc = std::min(o.format.block.cols, shape.cols);
  const num::random_stream random(o.seed, o.stream);
  for (std::size_t r0 = 0; r0 < shape.rows; r0 += tr) {
    for (std::size_t c0 = 0; c0 < shape.cols; c0 += tc) {
      std::vector<std::size_t> members;
      for (std::size_t r = r0; r < std::min(shape.rows, r0 + tr); ++r)
        for (std::size_t c = c0; c < std::min(shape.cols, c0 + tc); ++c) members.push_back(r * shape.cols + c);
      rational amax = 0;
      bool special = false;
      for (auto i : members) {
        if (std::isfinite(in[i]))
          amax = std::max(amax, of_float(std::fabs(in[i])));
        else
          special = true;
      }
      ++out.counts.blocks;
      out.counts.elements += members.size();
      if (special) {
        ++out.counts.nan_scale_blocks;
        out.scales.push_back(o.format.rule == num::scale_rule::nvfp4                 ? 0x7Fu
                             : scale_type_of(o.format.rule) == num::scale_type::e8m0 ? 0xFFu
                                                                                     : 0x7FC00000u);
        continue;
      }
      const scale_out s = block_scale(o, amax, out.tensor_scale);
      out.counts.scale_underflow += s.under;
      out.counts.scale_overflow += s.over;
      out.scales.push_back(s.code);
      for (auto i : members) {
        const std::uint32_t word = random.word(o.first_index + i);
        const rational x = of_float(in[i]);
        const bool negative = std::signbit(in[i]);
        element_out e;
        if (s.value == 0) {
          e.zero = true;
          e.inexact = x != 0;
          e.code = es.int8 || !negative ? 0u : 1u << (es.bits() - 1);
        } else {
          e = round_to_element(es, x / s.value, o.spec.mode, o.spec.random_bits, word, o.int8_symmetric);
          if (!es.int8 && negative && e.zero) e.code = 1u << (es.bits() - 1);  // -0 keeps its sign
        }
        out.codes[i] = e.code;
        out.elements[i] = e;
        out.counts.inexact += e.inexact;
        out.counts.saturated += e.saturated;
        if (e.zero && x != 0) {
          const scale_out own = block_scale(o, x < 0 ? rational(-x) : x, out.tensor_scale);
          const bool held =
              own.value != 0 &&
              !round_to_element(es, x / own.value, o.spec.mode, o.spec.random_bits, word, o.int8_symmetric).zero;
          ++(held ? out.counts.block_underflow : out.counts.underflow_to_zero);
        }
      }
    }
  }
  return out;
}

}  // namespace scaled_ref
