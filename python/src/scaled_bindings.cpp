// numlab.quantize / dequantize / quantize_dequantize: libnum's scaled formats (libnum/scaled_array.hpp:
// OCP MX, NVFP4, per-tensor and per-block FP8) on NumPy arrays, with the GIL
// released while they run. A 1-D array is one row, a 2-D array a row-major
// matrix, as num::tensor_shape takes them.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include <pybind11/stl.h>

#include <libnum/scaled_array.hpp>
#include <libnum/scaled_format.hpp>
#include <libnum/scaled_stats.hpp>

#include "bindings.hpp"
#include "numpy_arrays.hpp"
#include "scaled_arguments.hpp"

namespace numlab::python {
namespace {

num::scaled_format parse_scaled_argument(std::string_view call, const std::string& text) {
  try {
    return num::parse_scaled_format(text);
  } catch (const std::invalid_argument& e) {
    throw py::value_error(std::string(call) + " format: " + e.what());
  }
}

num::element_layout layout_of(bool packed) {
  return packed ? num::element_layout::packed : num::element_layout::byte_per_element;
}

num::special_block_policy parse_specials(const std::string& text) {
  if (text == "nan-scale") return num::special_block_policy::nan_scale;
  if (text == "keep") return num::special_block_policy::keep_in_elements;
  throw py::value_error("quantize specials: unknown policy '" + text + "' (expected nan-scale or keep)");
}

/// A 1-D array as one row, a 2-D array as its rows and columns.
num::tensor_shape shape_of_values(std::string_view call, std::string_view what, const std::vector<py::ssize_t>& shape) {
  if (shape.size() == 1) return {1, static_cast<std::size_t>(shape[0])};
  if (shape.size() == 2) return {static_cast<std::size_t>(shape[0]), static_cast<std::size_t>(shape[1])};
  throw py::value_error(std::string(call) + " " + std::string(what) + ": must be a 1-D or 2-D array (got " +
                        std::to_string(shape.size()) + "-D)");
}

/// call() with the GIL released; libnum's std::invalid_argument becomes
/// ValueError "<name>: <message>" (raised with the GIL held again).
template <class Call>
auto without_gil(std::string_view name, Call call) {
  try {
    py::gil_scoped_release unlocked;
    return call();
  } catch (const std::invalid_argument& e) {
    throw py::value_error(std::string(name) + ": " + e.what());
  }
}

/// The tallies under the names quantize's report and stats share.
py::dict counts_dict(const num::scaled_counts& c) {
  py::dict d;
  d["elements"] = c.elements;
  d["blocks"] = c.blocks;
  d["inexact"] = c.inexact;
  d["block_underflow"] = c.block_underflow;
  d["underflow_to_zero"] = c.underflow_to_zero;
  d["saturated"] = c.saturated;
  d["scale_underflow"] = c.scale_underflow;
  d["scale_overflow"] = c.scale_overflow;
  d["nan_scale_blocks"] = c.nan_scale_blocks;
  return d;
}

py::dict report_of(const num::scaled_result& r) {
  py::dict d = counts_dict(r.counts);
  d["flags"] = flag_names(r.raised);
  d["path"] = std::string(num::simd_path_name(r.path));
  return d;
}

/// The options of one quantizing call; raises ValueError/TypeError naming `call`.
num::scaled_options scaled_options_of(std::string_view call, const py::array& values,
                                      const rounding_arguments& rounding, const scaled_arguments& args) {
  if (!holds<float>(values)) bad_dtype(call, "values", "a float32 array", values);
  num::scaled_options o;
  o.format = parse_scaled_argument(call, args.format);
  o.spec = parse_spec(call, rounding);
  o.layout = layout_of(args.packed);
  o.specials = parse_specials(args.specials);
  o.int8_symmetric = args.int8_symmetric;
  o.margin = args.margin;
  o.given_scale = args.given_scale;
  if (args.tensor_amax) o.tensor_amax = *args.tensor_amax;
  o.seed = rounding.seed;
  o.stream = rounding.stream;
  o.first_index = rounding.first_index;
  return o;
}

py::tuple quantize_values(const py::array& values, const rounding_arguments& rounding, const scaled_arguments& args,
                          bool counts) {
  const num::scaled_options o = scaled_options_of("quantize", values, rounding, args);
  const std::vector<py::ssize_t> shape = shape_of(values);
  const num::tensor_shape tensor = shape_of_values("quantize", "values", shape);
  const auto in = contiguous<float>(values);
  const std::size_t element_count = num::element_bytes(o.format.element, o.layout, tensor.size());
  auto element_codes = args.packed
                           ? py::array_t<std::uint8_t, py::array::c_style>(static_cast<py::ssize_t>(element_count))
                           : py::array_t<std::uint8_t, py::array::c_style>(shape);
  py::array_t<std::uint32_t, py::array::c_style> scales(static_cast<py::ssize_t>(num::scale_count(o.format, tensor)));
  const auto input = elements(in);
  const auto codes = mutable_elements(element_codes);
  const auto scale_codes = mutable_elements(scales);
  const num::scaled_result result =
      without_gil("quantize", [&] { return num::quantize(input, tensor, codes, scale_codes, o); });
  if (counts)
    return py::make_tuple(std::move(element_codes), std::move(scales), result.tensor_scale, report_of(result));
  return py::make_tuple(std::move(element_codes), std::move(scales), result.tensor_scale);
}

py::tuple quantize_dequantize_values(const py::array& values, const rounding_arguments& rounding,
                                     const scaled_arguments& args, bool counts) {
  const num::scaled_options o = scaled_options_of("quantize_dequantize", values, rounding, args);
  const std::vector<py::ssize_t> shape = shape_of(values);
  const num::tensor_shape tensor = shape_of_values("quantize_dequantize", "values", shape);
  const auto in = contiguous<float>(values);
  py::array_t<float, py::array::c_style> result(shape);
  py::array_t<std::uint32_t, py::array::c_style> scales(static_cast<py::ssize_t>(num::scale_count(o.format, tensor)));
  const auto input = elements(in);
  const auto output = mutable_elements(result);
  const auto scale_codes = mutable_elements(scales);
  const num::scaled_result r = without_gil(
      "quantize_dequantize", [&] { return num::quantize_dequantize(input, tensor, output, scale_codes, o); });
  if (counts) return py::make_tuple(std::move(result), std::move(scales), r.tensor_scale, report_of(r));
  return py::make_tuple(std::move(result), std::move(scales), r.tensor_scale);
}

py::array dequantize_codes(const py::array& element_codes, const py::array& scales, const std::string& format,
                           float tensor_scale, const std::optional<std::vector<py::ssize_t>>& shape, bool packed,
                           bool int8_symmetric) {
  if (!holds<std::uint8_t>(element_codes)) bad_dtype("dequantize", "elements", "a uint8 array", element_codes);
  if (!holds<std::uint32_t>(scales)) bad_dtype("dequantize", "scales", "a uint32 array", scales);
  num::scaled_options o;
  o.format = parse_scaled_argument("dequantize", format);
  o.layout = layout_of(packed);
  o.int8_symmetric = int8_symmetric;
  if (packed && !shape) throw py::value_error("dequantize shape: packed elements need the tensor's shape");
  const std::vector<py::ssize_t> out_shape = shape ? *shape : shape_of(element_codes);
  const num::tensor_shape tensor = shape_of_values("dequantize", "shape", out_shape);
  const auto codes = contiguous<std::uint8_t>(element_codes);
  const auto scale_codes = contiguous<std::uint32_t>(scales);
  py::array_t<float, py::array::c_style> values(out_shape);
  const auto input = elements(codes);
  const auto scale_input = elements(scale_codes);
  const auto output = mutable_elements(values);
  without_gil("dequantize", [&] { num::dequantize(input, scale_input, tensor_scale, tensor, output, o); });
  return values;
}

}  // namespace

py::dict scaled_stats_of(const py::array& values, const rounding_arguments& rounding, const scaled_arguments& args) {
  const num::scaled_options o = scaled_options_of("stats", values, rounding, args);
  const num::tensor_shape tensor = shape_of_values("stats", "values", shape_of(values));
  const auto in = contiguous<float>(values);
  const auto input = elements(in);
  const num::scaled_stats s = without_gil("stats", [&] { return num::compute_scaled_stats(input, tensor, o); });
  py::dict d = counts_dict(s.counts);
  d["format"] = num::scaled_format_name(s.format);
  d["mode"] = std::string(num::rounding_name(o.spec.mode));
  d["tensor_scale"] = s.tensor_scale;
  py::dict binades;
  for (const auto& [k, blocks] : s.scale_binades) binades[py::int_(k)] = blocks;
  d["scale_binades"] = binades;
  d["zero_scale_blocks"] = s.zero_scale_blocks;
  py::array_t<double> amax_over_scale(static_cast<py::ssize_t>(s.amax_over_scale.size()));
  std::copy(s.amax_over_scale.begin(), s.amax_over_scale.end(), amax_over_scale.mutable_data());
  d["amax_over_scale"] = amax_over_scale;
  d["amax"] = static_cast<double>(s.amax);
  d["finite"] = s.finite;
  d["nonzero_finite"] = s.nonzero_finite;
  d["signal_energy"] = s.signal_energy;
  d["noise_energy"] = s.noise_energy;
  d["block_underflow_fraction"] = s.block_underflow_fraction();
  d["saturation_fraction"] = s.saturation_fraction();
  d["snr_db"] = s.snr_db();
  return d;
}

void bind_scaled(py::module_& m) {
  m.def(
      "quantize",
      [](const py::object& values, std::string format, std::string mode, int bits, std::uint64_t seed,
         std::uint64_t stream, std::uint64_t first_index, std::string overflow, std::string tininess, bool packed,
         std::string specials, bool int8_symmetric, int margin, float given_scale, std::optional<float> tensor_amax,
         bool counts) {
        return quantize_values(as_array(values), {"", mode, bits, overflow, tininess, seed, stream, first_index},
                               {format, packed, specials, int8_symmetric, margin, given_scale, tensor_amax}, counts);
      },
      py::arg("values"), py::arg("format") = "mxfp8", py::arg("mode") = "ne", py::kw_only(), py::arg("bits") = 32,
      py::arg("seed") = 0, py::arg("stream") = 0, py::arg("first_index") = 0, py::arg("overflow") = "saturate",
      py::arg("tininess") = "after", py::arg("packed") = false, py::arg("specials") = "nan-scale",
      py::arg("int8_symmetric") = false, py::arg("margin") = 0, py::arg("given_scale") = 1.0f,
      py::arg("tensor_amax") = py::none(), py::arg("counts") = false,
      R"(Quantize float32 values (1-D: one row; 2-D: a row-major matrix) into a
scaled format and return (elements, scales, tensor_scale): the element codes
as uint8 (one per element in the values' shape, or packed=True: FP4 two and
FP6 four per three bytes, 1-D), the block scale codes as uint32 (E8M0 or E4M3
codes, or fp32 bits; blocks in row-major order) and NVFP4's fp32 second-level
scale (1 for the other rules). With counts=True a dict of counts and flags
follows. format: mxfp8 mxfp8-e5m2 mxfp6-e2m3 mxfp6-e3m2 mxfp4 mxint8 nvfp4
nvfp4-2d fp8-tensor fp8-tensor-e5m2 fp8-block fp8-block-128x128, or
ELEMENT/RULE[/BLOCK]. Elements saturate unless overflow says otherwise (OCP MX
6.3). specials: nan-scale (a block holding NaN/inf gets a NaN scale) or keep
(E4M3/E5M2 only). Bit-identical to num::quantize.)");

  m.def(
      "quantize_dequantize",
      [](const py::object& values, std::string format, std::string mode, int bits, std::uint64_t seed,
         std::uint64_t stream, std::uint64_t first_index, std::string overflow, std::string tininess,
         std::string specials, bool int8_symmetric, int margin, float given_scale, std::optional<float> tensor_amax,
         bool counts) {
        return quantize_dequantize_values(
            as_array(values), {"", mode, bits, overflow, tininess, seed, stream, first_index},
            {format, false, specials, int8_symmetric, margin, given_scale, tensor_amax}, counts);
      },
      py::arg("values"), py::arg("format") = "mxfp8", py::arg("mode") = "ne", py::kw_only(), py::arg("bits") = 32,
      py::arg("seed") = 0, py::arg("stream") = 0, py::arg("first_index") = 0, py::arg("overflow") = "saturate",
      py::arg("tininess") = "after", py::arg("specials") = "nan-scale", py::arg("int8_symmetric") = false,
      py::arg("margin") = 0, py::arg("given_scale") = 1.0f, py::arg("tensor_amax") = py::none(),
      py::arg("counts") = false,
      R"(Quantize float32 values as quantize() does and return what dequantize()
gives back, in one call without element codes: (values, scales,
tensor_scale[, counts]), values float32 in the input's shape, bit for bit
dequantize(*quantize(x)). The fake-quantization of a GEMM operand. Arguments
as for quantize(). Bit-identical to num::quantize_dequantize.)");

  m.def(
      "dequantize",
      [](const py::object& elements, const py::object& scales, const std::string& format, float tensor_scale,
         std::optional<std::vector<py::ssize_t>> shape, bool packed, bool int8_symmetric) {
        return dequantize_codes(as_array(elements), as_array(scales), format, tensor_scale, shape, packed,
                                int8_symmetric);
      },
      py::arg("elements"), py::arg("scales"), py::arg("format") = "mxfp8", py::kw_only(),
      py::arg("tensor_scale") = 1.0f, py::arg("shape") = py::none(), py::arg("packed") = false,
      py::arg("int8_symmetric") = false,
      R"(The float32 value of every element of a quantized tensor: element x scale
(x tensor_scale), the exact product rounded once to nearest-even. shape: the
tensor's shape (required with packed=True; else the elements' shape).
Bit-identical to num::dequantize.)");
}

}  // namespace numlab::python
