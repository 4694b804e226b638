// quantize / dequantize of fp32 tensors in scaled formats (scalar path).
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "block_scale.hpp"
#include "element_decoder.hpp"
#include "element_packing.hpp"
#include "element_rounding.hpp"
#include "fast_element_rounding.hpp"
#include "fp32_scale_kernel.hpp"
#include "libnum/codec.hpp"
#include "libnum/philox.hpp"
#include "libnum/scaled_array.hpp"
#include "mx_block_kernel.hpp"
#include "nvfp4_block_kernel.hpp"
#include "quantize_setup.hpp"

namespace num {
namespace {

using scaled_detail::block_scale;
using scaled_detail::scale_context;
using scaled_detail::scale_fit;

using scaled_detail::block_grid;

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument("quantize: " + what); }


}  // namespace

void scaled_detail::check_size(std::string_view call, std::size_t got, std::size_t want, const char* what) {
  if (got != want) {
    throw std::invalid_argument(std::string(call) + ": " + what + " has " + std::to_string(got) +
                                " entries, expected " + std::to_string(want));
  }
}

void scaled_detail::check_format(const scaled_options& o) {
  if (auto why = scaled_format_problem(o.format)) bad(*why);
}

void scaled_detail::check_options(const scaled_options& o) {
  check_format(o);
  const std::string element(element_name(o.format.element));
  if (o.spec.random_bits < 1 || o.spec.random_bits > 32) {
    bad("random bits r = " + std::to_string(o.spec.random_bits) + " is out of range [1, 32]");
  }
  if (o.spec.overflow != overflow_mode::saturate && !element_has_specials(o.format.element)) {
    bad("element format " + element + " has no infinity or NaN, so overflow must saturate");
  }
  if (o.specials == special_block_policy::keep_in_elements && !element_has_specials(o.format.element)) {
    bad("element format " + element + " cannot keep NaN/inf in its elements (use the NaN-scale policy)");
  }
  if (o.margin < 0 || o.margin > 64) bad("margin " + std::to_string(o.margin) + " is out of range [0, 64]");
  if (o.format.rule == scale_rule::fp32_given && !(std::isfinite(o.given_scale) && o.given_scale > 0)) {
    bad("the given scale must be finite and positive (got " + std::to_string(o.given_scale) + ")");
  }
  if (!std::isnan(o.tensor_amax) && !(std::isfinite(o.tensor_amax) && o.tensor_amax >= 0)) {
    bad("tensor amax must be finite and >= 0, or NaN to compute it (got " + std::to_string(o.tensor_amax) + ")");
  }
}

namespace {


// The amax_scan of `in` on `path`. The scalar loop runs on the bit patterns
// of |x|, which order like the magnitudes; NaN and inf patterns are skipped.
scaled_detail::amax_scan scan_amax(std::span<const float> in, simd_path path) {
  switch (path) {
    case simd_path::avx512: return scaled_detail::scan_amax_avx512(in.data(), in.size());
    case simd_path::avx2: return scaled_detail::scan_amax_avx2(in.data(), in.size());
    default: break;
  }
  std::uint32_t amax = 0, special = 0;
  for (float x : in) {
    const std::uint32_t magnitude = std::bit_cast<std::uint32_t>(x) & 0x7FFFFFFFu;
    const bool finite = magnitude < 0x7F800000u;
    amax = finite && magnitude > amax ? magnitude : amax;
    special |= finite ? 0u : 1u;
  }
  return {std::bit_cast<float>(amax), special != 0};
}

// The amax NVFP4's tensor scale comes from: o.tensor_amax where given, else
// the largest finite |x| of `in` (0 when none).
float tensor_amax(std::span<const float> in, const scaled_options& o) {
  if (!std::isnan(o.tensor_amax)) return o.tensor_amax;
  return scan_amax(in, resolve_simd_path(o.path)).amax;
}

// One block's elements, as the (row, col) ranges of the tensor.
struct block_span {
  std::size_t row0, row1, col0, col1;
  template <class F>
  void for_each(std::size_t cols, F&& f) const {
    for (std::size_t r = row0; r < row1; ++r) {
      for (std::size_t c = col0; c < col1; ++c) f(r * cols + c);
    }
  }
};

class block_quantizer {
 public:
  block_quantizer(const scaled_options& o, std::span<const float> in, float tensor_scale)
      : o_(o), in_(in), random_(o.seed, o.stream), bits_(element_bits(o.format.element)), params_(o.format.element) {
    context_.element = o.format.element;
    context_.rule = o.format.rule;
    context_.margin = o.margin;
    context_.given_scale = o.given_scale;
    context_.tensor_scale = tensor_scale;
    // NVFP4's block scale of a lone |x| rounds to E4M3 zero iff
    // |x| / (6·s) <= 2^-10 (half E4M3's smallest subnormal, the tie going to
    // even zero); 6·s·2^-10 is exact in double.
    nvfp4_lone_zero_below_ = 6.0 * static_cast<double>(tensor_scale) * 0x1p-10;
    // Above this |x| a lone x's own scale surely fits its range (exact in
    // double): fp32 rules underflow iff RN(|x| / max_elem) is 0 (fp32_amax)
    // or 2^w < 2^-149 (pow2), i.e. iff |x| <= max_elem · 2^-150; RCEIL iff
    // |x| <= max_elem · 2^-128; floor and EVEN never from |x| >= 2^(emax_elem - 127)
    // (at equality the exact rule decides). Spares each flushed element a
    // scale computation.
    const double max_elem = element_max(o.format.element);
    switch (o.format.rule) {
      case scale_rule::fp32_amax:
      case scale_rule::fp32_amax_pow2: lone_scale_fits_above_ = max_elem * 0x1p-150; break;
      case scale_rule::mx_rceil: lone_scale_fits_above_ = max_elem * 0x1p-128; break;
      default: lone_scale_fits_above_ = std::ldexp(1.0, element_emax(o.format.element) - 127); break;
    }
    scan_path_ = resolve_simd_path(o.path);
    const scale_rule rule = o.format.rule;
    const bool fp32_rule =
        rule == scale_rule::fp32_amax || rule == scale_rule::fp32_amax_pow2 || rule == scale_rule::fp32_given;
    const bool fp8 = o.format.element == element_type::e4m3 || o.format.element == element_type::e5m2;
    if (fp32_rule && fp8 && o.spec.overflow == overflow_mode::saturate) {
      if ((scan_path_ == simd_path::avx512 && scaled_detail::fp32_kernel_usable()) ||
          (scan_path_ == simd_path::avx2 && scaled_detail::fp32_kernel_avx2_usable())) {
        fp32_kernel_ = scan_path_;
      }
    }
    if (fp32_kernel_ != simd_path::scalar) {
      const format g = *element_value_grid(o.format.element);
      fp32_setup_.precision = g.precision;
      fp32_setup_.emin = g.emin;
      fp32_setup_.bias = g.bias();
      fp32_setup_.max_code = o.format.element == element_type::e4m3 ? 0x7E : 0x7B;
      fp32_setup_.spec = o.spec;
      fp32_setup_.seed = o.seed;
      fp32_setup_.stream = o.stream;
      fp32_setup_.lone_scale_fits_above =
          o.margin == 0 && rule != scale_rule::fp32_given ? lone_scale_fits_above_ : std::nan("");
      fp32_setup_.quotient =
          scaled_detail::fp32_quotient_rule::of(g.precision, g.emin, g.bias(), fp32_setup_.max_code, o.spec,
                                                fp32_setup_.lone_scale_fits_above);
    }
  }

  /// Where blocks' elements run under an fp32 scale: the AVX-512 or AVX2
  /// element kernel, or scalar (not on a kernel).
  simd_path fp32_kernel_path() const { return fp32_kernel_; }
  /// Runs NVFP4's 2-D blocks 16 columns wide on the AVX-512 kernel.
  void use_nvfp4_tiles(const scaled_detail::nvfp4_kernel_setup& k, bool avx2) {
    nvfp4_tiles_ = true;
    nvfp4_tiles_avx2_ = avx2;
    nvfp4_setup_ = k;
  }

  // Quantizes one block into `elements`, returning its scale code.
  std::uint32_t run(const block_span& b, std::size_t cols, std::span<std::uint8_t> elements, scaled_result& result) {
    // Row segments shorter than one 16-lane vector stay on the inlined scalar
    // loop; NVFP4's 16 x 16 weight tiles take the vector scan row by row (at
    // 64, where this stood before, their scalar scans were 3% of a tutorial
    // conv nvfp4 step).
    const std::size_t width = b.col1 - b.col0;
    const simd_path scan_path = width >= 16 ? scan_path_ : simd_path::scalar;
    float amax = 0;
    bool special = false;
    for (std::size_t r = b.row0; r < b.row1; ++r) {
      const scaled_detail::amax_scan row = scan_amax(in_.subspan(r * cols + b.col0, width), scan_path);
      amax = std::max(amax, row.amax);
      special = special || row.special;
    }
    ++result.counts.blocks;
    if (special && o_.specials == special_block_policy::nan_scale) {
      ++result.counts.nan_scale_blocks;
      result.raised |= flags::invalid;
      b.for_each(cols, [&](std::size_t i) {
        ++result.counts.elements;
        scaled_detail::store_element(elements, bits_, o_.layout, i, 0);
      });
      return scaled_detail::nan_scale_code(scale_type_of(o_.format.rule));
    }
    const block_scale scale = scaled_detail::scale_for(context_, amax);
    if (scale.fit == scale_fit::underflowed) ++result.counts.scale_underflow;
    if (scale.fit == scale_fit::overflowed) ++result.counts.scale_overflow;
    if (nvfp4_tiles_ && !special && !scale.zero) {
      const std::size_t first = b.row0 * cols + b.col0;
      std::uint8_t* codes = elements.data() + (nvfp4_setup_.packed_fp4 ? first / 2 : first);
      const scaled_detail::nvfp4_tile tile{
          in_.data() + first, codes, cols, b.row1 - b.row0, b.col1 - b.col0, scale.by.value, o_.first_index + first};
      // The AVX2 kernel may leave the block to the loop below.
      if (!nvfp4_tiles_avx2_) {
        scaled_detail::nvfp4_tile_avx512(nvfp4_setup_, tile, result);
        return scale.code;
      }
      if (scaled_detail::nvfp4_tile_avx2(nvfp4_setup_, tile, result)) return scale.code;
    }
    if (fp32_kernel_ != simd_path::scalar && !special) {
      fp32_kernel_block(b, cols, scale, elements, result);
      return scale.code;
    }
    b.for_each(cols, [&](std::size_t i) {
      const scaled_detail::element_result e = element(in_[i], scale, i);
      ++result.counts.elements;
      result.raised |= e.raised;
      if (any(e.raised, flags::inexact)) ++result.counts.inexact;
      if (e.saturated) ++result.counts.saturated;
      if (e.zero && in_[i] != 0 && std::isfinite(in_[i])) {
        ++(own_scale_holds(in_[i], i) ? result.counts.block_underflow : result.counts.underflow_to_zero);
      }
      scaled_detail::store_element(elements, bits_, o_.layout, i, e.code);
    });
    return scale.code;
  }

 private:
  // The block's elements on the AVX-512 or AVX2 kernel, row segment by row segment;
  // the flushed elements it cannot class go through own_scale_holds.
  void fp32_kernel_block(const block_span& b, std::size_t cols, const block_scale& scale,
                         std::span<std::uint8_t> elements, scaled_result& result) {
    scaled_detail::fp32_segment_counts c;
    for (std::size_t r = b.row0; r < b.row1; ++r) {
      const std::size_t first = r * cols + b.col0, n = b.col1 - b.col0;
      const std::uint64_t unclassed = c.flushed - c.flushed_sure;
      if (fp32_kernel_ == simd_path::avx2) {
        scaled_detail::fp32_scaled_elements_avx2(fp32_setup_, in_.data() + first, elements.data() + first, n,
                                                 scale.by.value, c, o_.first_index + first);
      } else {
        scaled_detail::fp32_scaled_elements_avx512(fp32_setup_, in_.data() + first, elements.data() + first, n,
                                                   scale.by.value, c, o_.first_index + first);
      }
      if (c.flushed - c.flushed_sure == unclassed) continue;
      if (o_.format.rule == scale_rule::fp32_given) {
        // A given scale is every element's own: each flushed one underflowed.
        result.counts.underflow_to_zero += c.flushed - c.flushed_sure - unclassed;
        continue;
      }
      for (std::size_t i = first; i < first + n; ++i) {
        const float ax = std::fabs(in_[i]);
        if ((elements[i] & 0x7Fu) != 0 || ax == 0 || static_cast<double>(ax) > fp32_setup_.lone_scale_fits_above)
          continue;
        ++(own_scale_holds(in_[i], i) ? result.counts.block_underflow : result.counts.underflow_to_zero);
      }
    }
    result.counts.elements += (b.row1 - b.row0) * (b.col1 - b.col0);
    result.counts.inexact += c.inexact;
    result.counts.saturated += c.saturated;
    result.counts.block_underflow += c.flushed_sure;
    if (c.inexact != 0) result.raised |= flags::inexact;
    if (c.saturated != 0) result.raised |= flags::overflow;
    if (c.underflow) result.raised |= flags::underflow;
  }

  // Whether x, nonzero and finite, would round to nonzero under the scale the
  // rule gives a block of x alone. Every rule puts such an x at the top of
  // the element range (MX: in [2^emax_elem, 2^(emax_elem+1)); fp32 and NVFP4
  // near max_elem) unless that scale itself was clamped below its range or a
  // margin moved it down, so only then is the element rounded again; a given
  // scale is the block's own.
  bool own_scale_holds(float x, std::size_t i) {
    const float ax = std::fabs(x);
    switch (o_.format.rule) {
      case scale_rule::fp32_given: return false;
      case scale_rule::nvfp4: return static_cast<double>(ax) > nvfp4_lone_zero_below_;
      default: break;
    }
    if (o_.margin == 0 && static_cast<double>(ax) > lone_scale_fits_above_) return true;
    const block_scale own = scaled_detail::scale_for(context_, ax);
    return (own.fit != scale_fit::underflowed && o_.margin == 0) || !element(x, own, i).zero;
  }

  std::uint32_t random_word(std::uint64_t index) {
    if (index / 4 != cached_block_) {
      cached_block_ = index / 4;
      cached_words_ = random_.block(cached_block_);
    }
    return cached_words_[index % 4];
  }

  scaled_detail::element_result element(float x, const block_scale& scale, std::size_t i) {
    if (!std::isfinite(x)) return scaled_detail::special_element(o_.format.element, x, o_.spec);
    const std::uint32_t word = o_.spec.mode == rounding::stochastic ? random_word(o_.first_index + i) : 0;
    if (scale.zero) {
      // A zero scale (NVFP4 block scale below E4M3's range) decodes every
      // element to zero; the element keeps x's sign.
      exact_value z;
      z.negative = std::signbit(x);
      scaled_detail::element_result e =
          scaled_detail::round_element(o_.format.element, z, o_.spec, word, o_.int8_symmetric);
      if (x != 0) e.raised |= flags::inexact | flags::underflow;
      return e;
    }
    scaled_detail::element_result fast;
    if (fast_quotient(x, scale.by, word, fast)) return fast;
    return scaled_detail::round_element(o_.format.element, scaled_detail::exact_quotient(x, scale.by), o_.spec, word,
                                        o_.int8_symmetric);
  }

  bool fast_quotient(float x, scaled_detail::divisor by, std::uint32_t word, scaled_detail::element_result& out) const {
    const scaled_detail::bracket q = scaled_detail::quotient_bracket(x, by);
    return scaled_detail::round_element_fast(params_, std::signbit(x), q.m, q.exponent, q.sticky, o_.spec, word,
                                             o_.int8_symmetric, out);
  }

  const scaled_options& o_;
  std::span<const float> in_;
  random_stream random_;
  int bits_;
  scaled_detail::element_params params_;
  scale_context context_;
  double nvfp4_lone_zero_below_ = 0;
  double lone_scale_fits_above_ = 0;
  simd_path fp32_kernel_ = simd_path::scalar;
  simd_path scan_path_ = simd_path::scalar;  // where long row segments' amax is scanned
  bool nvfp4_tiles_ = false;
  bool nvfp4_tiles_avx2_ = false;  // on the AVX2 kernel, else the AVX-512 one
  scaled_detail::nvfp4_kernel_setup nvfp4_setup_;
  scaled_detail::fp32_kernel_setup fp32_setup_;
  std::uint64_t cached_block_ = ~std::uint64_t{0};
  std::array<std::uint32_t, 4> cached_words_{};
};

// The block kernel this call can use (blocks it declines run scalar): the
// AVX-512 MX or NVFP4 one, or the AVX2 MX or NVFP4 one.
enum class block_kernel : std::uint8_t { none, mx, nvfp4, mx_avx2, nvfp4_avx2 };

bool is_mx(block_kernel k) { return k == block_kernel::mx || k == block_kernel::mx_avx2; }
bool is_avx2(block_kernel k) { return k == block_kernel::mx_avx2 || k == block_kernel::nvfp4_avx2; }

// Packed FP4 codes go two per byte: the kernels take them where every row
// starts on a byte (an even column count).
bool packed_fp4(const scaled_options& o) {
  return o.layout == element_layout::packed && element_bits(o.format.element) == 4;
}

block_kernel kernel_for(const scaled_options& o, tensor_shape shape) {
  const simd_path path = resolve_simd_path(o.path);
  if (path != simd_path::avx512 && path != simd_path::avx2) return block_kernel::none;
  const scaled_format& f = o.format;
  const bool layout_fits = o.layout == element_layout::byte_per_element || element_bits(f.element) == 8 ||
                           (packed_fp4(o) && shape.cols % 2 == 0);
  const bool mx_rule =
      f.rule == scale_rule::mx_floor || f.rule == scale_rule::mx_rceil || f.rule == scale_rule::mx_even;
  if (mx_rule && f.block == block_shape{1, 32} && layout_fits &&
      o.spec.overflow == overflow_mode::saturate && o.margin == 0) {
    if (path == simd_path::avx512) return block_kernel::mx;
    return scaled_detail::mx_avx2_usable(o.spec.mode) ? block_kernel::mx_avx2 : block_kernel::none;
  }
  if (f.rule == scale_rule::nvfp4 && f.block == block_shape{1, 16} && layout_fits) {
    if (path == simd_path::avx512) {
      return scaled_detail::nvfp4_kernel_usable() ? block_kernel::nvfp4 : block_kernel::none;
    }
    return scaled_detail::nvfp4_avx2_usable() ? block_kernel::nvfp4_avx2 : block_kernel::none;
  }
  return block_kernel::none;
}

// NVFP4's 2-D blocks (16 columns wide, 16 rows) on the AVX-512 kernel, row
// by row; the same layouts as the 1x16 kernel.
bool nvfp4_tiles_fit(const scaled_options& o, tensor_shape shape) {
  const bool layout_fits = o.layout == element_layout::byte_per_element || shape.cols % 2 == 0;
  if (!(o.format.rule == scale_rule::nvfp4 && o.format.block.cols == 16 && o.format.block.rows > 1 && layout_fits))
    return false;
  switch (resolve_simd_path(o.path)) {
    case simd_path::avx512: return scaled_detail::nvfp4_kernel_usable();
    case simd_path::avx2: return scaled_detail::nvfp4_avx2_usable();
    default: return false;
  }
}

scaled_detail::mx_kernel_setup mx_setup(const scaled_options& o) {
  scaled_detail::mx_kernel_setup k;
  if (o.format.element == element_type::int8) {
    k.int8 = true;
    k.int8_symmetric = o.int8_symmetric;
    k.precision = 7;  // 7 magnitude bits (EVEN rounds amax to them)
    k.emin = k.emax = k.bias = 0;
    k.max_code = 127;
  } else {
    const format g = *element_value_grid(o.format.element);
    k.precision = g.precision;
    k.emin = g.emin;
    k.emax = g.emax;
    k.bias = g.bias();
    k.max_code = (static_cast<std::uint32_t>(g.emax + g.bias()) << g.fraction_bits()) |
                 (g.max_significand() & g.fraction_mask());
  }
  k.element_bits = element_bits(o.format.element);
  k.rule = o.format.rule;
  k.max_value = static_cast<float>(element_max(o.format.element));  // exact in fp32
  k.max_fraction = std::bit_cast<std::uint32_t>(k.max_value) & 0x7FFFFFu;
  k.spec = o.spec;
  k.seed = o.seed;
  k.stream = o.stream;
  k.packed_fp4 = packed_fp4(o);
  return k;
}

}  // namespace

void scaled_detail::left_blocks::add(std::size_t block) { indices_.push_back(block); }

std::size_t scale_count(const scaled_format& f, tensor_shape shape) {
  if (auto why = scaled_format_problem(f)) throw std::invalid_argument("scaled format: " + *why);
  return block_grid(f, shape).count();
}

std::size_t element_bytes(element_type t, element_layout layout, std::size_t n) {
  if (layout == element_layout::byte_per_element) return n;
  return (n * static_cast<std::size_t>(element_bits(t)) + 7) / 8;
}

bool scaled_detail::fused_values_fit(const scaled_options& o, tensor_shape shape) {
  const block_kernel kernel = kernel_for(o, shape);
  const std::size_t width = is_mx(kernel) ? 32 : 16;
  const std::size_t tile_cols = block_grid(o.format, shape).tile_cols;
  return o.layout == element_layout::byte_per_element && kernel != block_kernel::none &&
         (tile_cols == width || tile_cols == shape.cols);
}

scaled_result quantize(std::span<const float> in, tensor_shape shape, std::span<std::uint8_t> elements,
                       std::span<std::uint32_t> scales, const scaled_options& options) {
  scaled_detail::check_options(options);
  scaled_detail::check_size("quantize", in.size(), shape.size(), "the input");
  scaled_detail::check_size("quantize", elements.size(),
                            element_bytes(options.format.element, options.layout, shape.size()), "the element array");
  scaled_detail::check_size("quantize", scales.size(), block_grid(options.format, shape).count(), "the scale array");
  return scaled_detail::quantize_into(in, shape, elements, scales, options, nullptr);
}

scaled_result scaled_detail::quantize_into(std::span<const float> in, tensor_shape shape,
                                           std::span<std::uint8_t> elements, std::span<std::uint32_t> scales,
                                           const scaled_options& options, float* values) {
  if (values == nullptr && packed_fp6_bands_fit(options, shape)) {
    return quantize_packed_fp6_bands(in, shape, elements, scales, options);
  }
  const block_grid grid(options.format, shape);
  scaled_result result;
  const block_kernel kernel = kernel_for(options, shape);
  if (options.format.rule == scale_rule::nvfp4) {
    result.tensor_scale = scaled_detail::nvfp4_tensor_scale(tensor_amax(in, options));
  }
  if (options.layout == element_layout::packed) std::fill(elements.begin(), elements.end(), std::uint8_t{0});
  block_quantizer quantizer(options, in, result.tensor_scale);
  const scaled_detail::nvfp4_kernel_setup nvfp4_setup{options.spec, result.tensor_scale, options.seed, options.stream,
                                                      packed_fp4(options)};
  const bool tiles = nvfp4_tiles_fit(options, shape);
  const bool avx2 = resolve_simd_path(options.path) == simd_path::avx2;
  if (tiles) quantizer.use_nvfp4_tiles(nvfp4_setup, avx2);
  const simd_path fp32_kernel = quantizer.fp32_kernel_path();
  const bool any_kernel = kernel != block_kernel::none || fp32_kernel != simd_path::scalar || tiles;
  result.path = is_avx2(kernel) || (tiles && avx2) || fp32_kernel == simd_path::avx2 ? simd_path::avx2
                : any_kernel                                                          ? simd_path::avx512
                                                                                      : simd_path::scalar;
  // Blocks the kernel leaves are quantized into `elements` and, for values,
  // decoded from there.
  std::optional<scaled_detail::element_decoder> decoder;
  if (values != nullptr) decoder.emplace(options);
  auto scalar_block = [&](std::size_t br, std::size_t bc) {
    const block_span b{br * grid.tile_rows, std::min(shape.rows, (br + 1) * grid.tile_rows), bc * grid.tile_cols,
                       std::min(shape.cols, (bc + 1) * grid.tile_cols)};
    const std::size_t index = br * grid.block_cols + bc;
    scales[index] = quantizer.run(b, shape.cols, elements, result);
    if (decoder) {
      decoder->block(elements, scales[index], result.tensor_scale, b.row0, b.row1, b.col0, b.col1, shape.cols,
                     {values, shape.size()});
    }
  };
  // A kernel takes each row's blocks, its partial last one included; what
  // it leaves runs scalar.
  const std::size_t width = is_mx(kernel) ? 32 : 16;
  // (Rows narrower than a block are one partial block each.)
  const bool kernel_rows = kernel != block_kernel::none && (grid.tile_cols == width || grid.tile_cols == shape.cols);
  const std::size_t kernel_blocks = kernel_rows ? shape.cols / width : 0;
  const std::size_t tail = kernel_rows ? shape.cols % width : 0;
  const scaled_detail::mx_kernel_setup setup =
      is_mx(kernel) ? mx_setup(options) : scaled_detail::mx_kernel_setup{};
  scaled_detail::left_blocks left;
  if (is_mx(kernel) && kernel_rows && shape.cols != 0 && shape.cols <= 16) {
    // Rows of at most half a block: several to one pass of the kernel.
    const scaled_detail::mx_short_rows rows{in.data(),  elements.data(),      scales.data(), shape.rows,
                                            shape.cols, options.first_index, values};
    if (kernel == block_kernel::mx) {
      scaled_detail::mx_short_rows_avx512(setup, rows, result, left);
    } else {
      scaled_detail::mx_short_rows_avx2(setup, rows, result, left);
    }
    for (std::size_t row : left.indices()) scalar_block(row, 0);
    return result;
  }
  for (std::size_t br = 0; br < grid.block_rows; ++br) {
    if (kernel_rows) {
      const std::size_t first = br * shape.cols;
      std::uint8_t* row_codes = elements.data() + (packed_fp4(options) ? first / 2 : first);
      std::uint32_t* row_scales = scales.data() + br * grid.block_cols;
      left.clear();
      if (is_mx(kernel)) {
        const scaled_detail::mx_run run{in.data() + first, row_codes,   row_scales,
                                        kernel_blocks,     tail,        options.first_index + first,
                                        values == nullptr ? nullptr : values + first};
        if (kernel == block_kernel::mx) {
          scaled_detail::mx_blocks_avx512(setup, run, result, left);
        } else {
          scaled_detail::mx_blocks_avx2(setup, run, result, left);
        }
      } else {
        const scaled_detail::nvfp4_run run{in.data() + first, row_codes,   row_scales,
                                           kernel_blocks,     tail,        options.first_index + first,
                                           values == nullptr ? nullptr : values + first};
        if (kernel == block_kernel::nvfp4) {
          scaled_detail::nvfp4_blocks_avx512(nvfp4_setup, run, result, left);
        } else {
          scaled_detail::nvfp4_blocks_avx2(nvfp4_setup, run, result, left);
        }
      }
      for (std::size_t bc : left.indices()) scalar_block(br, bc);
    }
    for (std::size_t bc = kernel_rows ? grid.block_cols : 0; bc < grid.block_cols; ++bc) scalar_block(br, bc);
  }
  return result;
}

double scale_value(scale_type t, std::uint32_t code) {
  switch (t) {
    case scale_type::e8m0:
      return (code & 0xFFu) == 0xFFu ? std::nan("") : std::ldexp(1.0, static_cast<int>(code & 0xFFu) - 127);
    case scale_type::ue4m3: return (code & 0x7Fu) == 0x7Fu ? std::nan("") : to_double(fp8_e4m3, code & 0x7Fu);
    case scale_type::fp32: return std::bit_cast<float>(code);
  }
  return std::nan("");
}

double element_value(element_type t, std::uint32_t code) { return scaled_detail::decode_element(t, code); }

std::uint32_t element_code_at(std::span<const std::uint8_t> elements, element_type t, element_layout layout,
                              std::size_t k) {
  return scaled_detail::load_element(elements, element_bits(t), layout, k);
}

}  // namespace num
