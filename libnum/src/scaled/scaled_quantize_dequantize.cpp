// quantize_dequantize: where a block kernel (MX or 1x16 NVFP4, AVX-512 or AVX2) runs the call, each
// block's values straight from its rounding; elsewhere quantize() into a
// byte-per-element code buffer of its own, then dequantize(). (Cache-sized
// bands of the two calls once bought nothing measurable: bench/RESULTS.md.)
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "libnum/scaled_array.hpp"
#include "quantize_setup.hpp"

namespace num {
namespace {

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument("quantize_dequantize: " + what); }

}  // namespace

scaled_result quantize_dequantize(std::span<const float> in, tensor_shape shape, std::span<float> out,
                                  std::span<std::uint32_t> scales, const scaled_options& options) {
  scaled_detail::check_options(options);
  scaled_detail::check_size("quantize_dequantize", in.size(), shape.size(), "the input");
  scaled_detail::check_size("quantize_dequantize", out.size(), shape.size(), "the output");
  scaled_detail::check_size("quantize_dequantize", scales.size(), scale_count(options.format, shape),
                            "the scale array");
  const std::less<const float*> before;
  const bool overlap = before(out.data(), in.data() + in.size()) && before(in.data(), out.data() + out.size());
  if (overlap && out.data() != in.data())
    bad("the output overlaps the input without being the input itself");
  if (shape.size() == 0) return scaled_result{};
  scaled_options byte_options = options;
  byte_options.layout = element_layout::byte_per_element;
  // Uninitialised: quantize writes every byte it reads back.
  const auto buffer = std::make_unique_for_overwrite<std::uint8_t[]>(shape.size());
  const std::span<std::uint8_t> codes(buffer.get(), shape.size());
  if (scaled_detail::fused_values_fit(byte_options, shape)) {
    // The kernel writes each block's values from its rounding; the codes
    // buffer holds only what it leaves to the scalar path (so its untouched
    // pages are never even mapped). A block reads its inputs before writing
    // its values, so in place is safe.
    return scaled_detail::quantize_into(in, shape, codes, scales, byte_options, out.data());
  }
  // quantize reads all of `in` before dequantize writes `out`, so in place is safe.
  const scaled_result result = quantize(in, shape, codes, scales, byte_options);
  dequantize(codes, scales, result.tensor_scale, shape, out, byte_options);
  return result;
}

scaled_result quantize_dequantize(std::span<const float> in, tensor_shape shape, std::span<float> out,
                                  const scaled_options& options) {
  scaled_detail::check_options(options);
  std::vector<std::uint32_t> scales(scale_count(options.format, shape));
  return quantize_dequantize(in, shape, out, scales, options);
}

}  // namespace num
