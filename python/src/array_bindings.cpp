// numlab.round / encode / decode: libnum's array kernels (libnum/array.hpp)
// on NumPy arrays, with the GIL released while they run.
#include <optional>
#include <string>

#include <pybind11/stl.h>

#include <libnum/array.hpp>

#include "arguments.hpp"
#include "bindings.hpp"
#include "numpy_arrays.hpp"

namespace numlab::python {
namespace {

/// How the kernel runs, beside how it rounds.
struct kernel_arguments {
  bool flush_subnormal_inputs = false;
  bool flush_subnormal_outputs = false;
  bool counts = false;
  unsigned threads = 1;
};

num::array_options array_options_of(std::string_view call, const rounding_arguments& args,
                                    const kernel_arguments& kernel) {
  num::array_options o;
  o.target = parse_format_argument(call, args.format);
  o.spec = parse_spec(call, args);
  o.seed = args.seed;
  o.stream = args.stream;
  o.first_index = args.first_index;
  o.draws = parse_draws_argument(call, args.draws);
  o.want_counts = kernel.counts;
  o.flush_subnormal_inputs = kernel.flush_subnormal_inputs;
  o.flush_subnormal_outputs = kernel.flush_subnormal_outputs;
  o.threads = kernel.threads;
  return o;
}

py::object with_report(py::object result, const num::conversion_result& report, bool counts) {
  if (!counts) return result;
  return py::make_tuple(std::move(result), report);
}

/// `out` checked to be a writeable C-contiguous float32 array of `size` elements.
py::array_t<float, py::array::c_style> output_array(const py::array& out, py::ssize_t size) {
  if (!holds<float>(out)) bad_dtype("round", "out", "a float32 array", out);
  if (!(out.flags() & py::array::c_style) || !out.writeable())
    throw py::value_error("round out: must be a writeable C-contiguous array");
  if (out.size() != size)
    throw py::value_error("round out: has " + std::to_string(out.size()) + " elements, values have " +
                          std::to_string(size));
  return py::reinterpret_borrow<py::array_t<float, py::array::c_style>>(out);
}

template <class In>
num::conversion_result round_into(const py::array& values, py::array_t<float, py::array::c_style>& result,
                                  const num::array_options& o) {
  const auto in = contiguous<In>(values);
  const auto input = elements(in);
  const auto output = mutable_elements(result);
  py::gil_scoped_release unlocked;
  return num::round_array(input, output, o);
}

py::object round_values(const py::array& values, const rounding_arguments& args, const kernel_arguments& kernel,
                        const std::optional<py::array>& out) {
  const num::array_options o = array_options_of("round", args, kernel);
  const bool f32 = holds<float>(values);
  if (!f32 && !holds<double>(values)) bad_dtype("round", "values", "a float32 or float64 array", values);
  auto result = out ? output_array(*out, values.size()) : empty_like_shape<float>(values);
  const num::conversion_result report = f32 ? round_into<float>(values, result, o) : round_into<double>(values, result, o);
  return with_report(std::move(result), report, kernel.counts);
}

template <class In, class Code>
py::object encode_typed(const py::array& values, const num::array_options& o, bool counts) {
  const auto in = contiguous<In>(values);
  auto codes = empty_like_shape<Code>(values);
  const auto input = elements(in);
  const auto output = mutable_elements(codes);
  num::conversion_result report;
  {
    py::gil_scoped_release unlocked;
    report = num::encode_array(input, output, o);
  }
  return with_report(std::move(codes), report, counts);
}

template <class In>
py::object encode_from(const py::array& values, const num::array_options& o, bool counts) {
  const int width = o.target.total_bits();
  if (width <= 8) return encode_typed<In, std::uint8_t>(values, o, counts);
  if (width <= 16) return encode_typed<In, std::uint16_t>(values, o, counts);
  return encode_typed<In, std::uint32_t>(values, o, counts);
}

py::object encode_values(const py::array& values, const rounding_arguments& args, const kernel_arguments& kernel) {
  const num::array_options o = array_options_of("encode", args, kernel);
  if (holds<float>(values)) return encode_from<float>(values, o, kernel.counts);
  if (holds<double>(values)) return encode_from<double>(values, o, kernel.counts);
  bad_dtype("encode", "values", "a float32 or float64 array", values);
}

template <class Code>
py::array decode_typed(const py::array& codes, const num::decode_options& o) {
  const auto in = contiguous<Code>(codes);
  auto values = empty_like_shape<float>(codes);
  const auto input = elements(in);
  const auto output = mutable_elements(values);
  py::gil_scoped_release unlocked;
  num::decode_array(input, output, o);
  return values;
}

py::array decode_codes(const py::array& codes, const std::string& format, bool flush_subnormal_inputs,
                       unsigned threads) {
  num::decode_options o;
  o.source = parse_format_argument("decode", format);
  o.flush_subnormal_inputs = flush_subnormal_inputs;
  o.threads = threads;
  if (holds<std::uint8_t>(codes)) return decode_typed<std::uint8_t>(codes, o);
  if (holds<std::uint16_t>(codes)) return decode_typed<std::uint16_t>(codes, o);
  if (holds<std::uint32_t>(codes)) return decode_typed<std::uint32_t>(codes, o);
  bad_dtype("decode", "codes", "a uint8, uint16 or uint32 array", codes);
}

}  // namespace

void bind_arrays(py::module_& m) {
  py::class_<num::conversion_result>(m, "ConversionReport",
                                     "Flags and counts of one round/encode call made with counts=True.")
      .def_property_readonly("flags", [](const num::conversion_result& r) { return flag_names(r.raised); },
                             "IEEE 754 flags raised by any element, as names")
      .def_property_readonly("flag_bits", [](const num::conversion_result& r) { return static_cast<int>(r.raised); },
                             "the same flags as Berkeley TestFloat's bits (inexact 1, underflow 2, overflow 4, "
                             "divide-by-zero 8, invalid 16)")
      .def_property_readonly("inexact", [](const num::conversion_result& r) { return r.counts.inexact; })
      .def_property_readonly("underflow_to_zero",
                             [](const num::conversion_result& r) { return r.counts.underflow_to_zero; })
      .def_property_readonly("became_subnormal",
                             [](const num::conversion_result& r) { return r.counts.became_subnormal; })
      .def_property_readonly("overflowed", [](const num::conversion_result& r) { return r.counts.overflowed; })
      .def_property_readonly("nan", [](const num::conversion_result& r) { return r.counts.nan; })
      .def_property_readonly("path", [](const num::conversion_result& r) {
        return std::string(num::simd_path_name(r.path));
      }, "the SIMD path that ran")
      .def_property_readonly("threads", [](const num::conversion_result& r) { return r.threads; },
                             "the threads the call ran on (1: the caller's alone; fewer than asked for "
                             "when the array is short)")
      .def("__repr__", [](const num::conversion_result& r) {
        return "ConversionReport(flags=" + num::flags_to_string(r.raised) +
               ", inexact=" + std::to_string(r.counts.inexact) +
               ", underflow_to_zero=" + std::to_string(r.counts.underflow_to_zero) +
               ", became_subnormal=" + std::to_string(r.counts.became_subnormal) +
               ", overflowed=" + std::to_string(r.counts.overflowed) + ", nan=" + std::to_string(r.counts.nan) +
               ", path=" + std::string(num::simd_path_name(r.path)) + ", threads=" + std::to_string(r.threads) +
               ")";
      });

  m.def(
      "round",
      [](const py::object& values, std::string format, std::string mode, int bits, std::uint64_t seed,
         std::uint64_t stream, std::uint64_t first_index, std::string overflow, std::string tininess,
         std::string nans, bool flush_subnormal_inputs, bool flush_subnormal_outputs, bool counts, unsigned threads,
         std::optional<py::array> out, std::string draws) {
        return round_values(as_array(values),
                            {format, mode, bits, overflow, tininess, seed, stream, first_index, nans, draws},
                            {flush_subnormal_inputs, flush_subnormal_outputs, counts, threads}, out);
      },
      py::arg("values"), py::arg("format") = "fp16", py::arg("mode") = "ne", py::kw_only(), py::arg("bits") = 32,
      py::arg("seed") = 0, py::arg("stream") = 0, py::arg("first_index") = 0, py::arg("overflow") = "ieee",
      py::arg("tininess") = "after", py::arg("nans") = "first-operand", py::arg("flush_subnormal_inputs") = false,
      py::arg("flush_subnormal_outputs") = false, py::arg("counts") = false, py::arg("threads") = 1,
      py::arg("out") = py::none(), py::arg("draws") = "full-word",
      R"(Round float32/float64 values once into `format` and return them as float32
(the exact value of each rounded result), in the shape of `values`.

mode: ne na rz ru rd ro sr. Stochastic rounding (sr) takes `bits` random bits
from word first_index + i of the Philox stream (seed, stream) for element i;
with draws="half-word" (bits <= 16) element i takes the low (i even) or high
(i odd) 16-bit half of word (first_index + i) / 2 instead: half the generator's
work (docs/NUMERICS.md).
overflow: ieee, saturate or nan; tininess: after or before (rounding).
nans: which NaN a NaN result is (docs/NUMERICS.md, "NaNs"): first-operand
(sign and top payload bits kept), x86 (as first-operand for conversions),
arm-dn (Arm's default NaN), cuda (the canonical NaN, fp16 0x7fff).
With counts=True returns (array, ConversionReport). out: a float32 array to
write into (may be `values` itself). Bit-identical to num::round_array.)");

  m.def(
      "encode",
      [](const py::object& values, std::string format, std::string mode, int bits, std::uint64_t seed,
         std::uint64_t stream, std::uint64_t first_index, std::string overflow, std::string tininess,
         std::string nans, bool flush_subnormal_inputs, bool flush_subnormal_outputs, bool counts, unsigned threads,
         std::string draws) {
        return encode_values(as_array(values),
                             {format, mode, bits, overflow, tininess, seed, stream, first_index, nans, draws},
                             {flush_subnormal_inputs, flush_subnormal_outputs, counts, threads});
      },
      py::arg("values"), py::arg("format") = "fp16", py::arg("mode") = "ne", py::kw_only(), py::arg("bits") = 32,
      py::arg("seed") = 0, py::arg("stream") = 0, py::arg("first_index") = 0, py::arg("overflow") = "ieee",
      py::arg("tininess") = "after", py::arg("nans") = "first-operand", py::arg("flush_subnormal_inputs") = false,
      py::arg("flush_subnormal_outputs") = false, py::arg("counts") = false, py::arg("threads") = 1,
      py::arg("draws") = "full-word",
      R"(Round float32/float64 values once into `format` and return the encodings:
uint8 for formats of up to 8 bits, uint16 up to 16, uint32 beyond. Arguments as
for round(). Bit-identical to num::encode_array.)");

  m.def(
      "decode",
      [](const py::object& codes, const std::string& format, bool flush_subnormal_inputs, unsigned threads) {
        return decode_codes(as_array(codes), format, flush_subnormal_inputs, threads);
      },
      py::arg("codes"), py::arg("format") = "fp16", py::kw_only(),
        py::arg("flush_subnormal_inputs") = false, py::arg("threads") = 1,
        R"(The exact float32 value of each encoding (uint8/uint16/uint32) of `format`;
bits above the format's width are ignored. Bit-identical to num::decode_array.)");
}

}  // namespace numlab::python
