// numlab.stats, numlab.formats, numlab.format_info: libnum's tensor
// statistics (libnum/tensor_stats.hpp; scaled_stats.hpp for a scaled format)
// and format parameters as dicts.
#include <optional>
#include <string>
#include <utility>

#include <pybind11/stl.h>

#include <libnum/scaled_format.hpp>
#include <libnum/tensor_stats.hpp>

#include "bindings.hpp"
#include "numpy_arrays.hpp"
#include "scaled_arguments.hpp"

namespace numlab::python {
namespace {

py::dict format_dict(const num::format& f, std::string_view description) {
  py::dict d;
  d["name"] = num::format_name(f);
  d["description"] = std::string(description);
  d["bits"] = f.total_bits();
  d["exponent_bits"] = f.exponent_bits();
  d["precision"] = f.precision;
  d["emin"] = f.emin;
  d["emax"] = f.emax;
  d["subnormals"] = f.subnormals;
  d["infinities"] = f.infinities;
  d["max"] = f.max();
  d["min_normal"] = f.min_normal();
  d["min_subnormal"] = f.min_subnormal();
  d["epsilon"] = f.epsilon();
  return d;
}

py::list builtin_format_list() {
  py::list list;
  for (const auto& [value, description] : num::builtin_formats) list.append(format_dict(value, description));
  return list;
}

py::dict stats_dict(const num::tensor_stats& s) {
  py::dict d;
  d["format"] = num::format_name(s.target);
  d["mode"] = std::string(num::rounding_name(s.spec.mode));
  d["count"] = s.count;
  d["zeros"] = s.zeros;
  d["subnormals"] = s.subnormals;
  d["underflows"] = s.underflows;
  d["overflows"] = s.overflows;
  d["nans"] = s.nans;
  d["infs"] = s.infs;
  d["min_abs"] = static_cast<double>(s.min_abs);
  d["min_nonzero_abs"] = static_cast<double>(s.min_nonzero_abs);
  d["max_abs"] = static_cast<double>(s.max_abs);
  d["mean"] = s.mean();
  d["rms"] = s.rms();
  d["sum"] = s.sum;
  d["sum_squares"] = s.sum_squares;
  d["hist_first_exponent"] = s.lowest_binade();
  const auto bins = s.bins();
  py::array_t<std::uint64_t> histogram(static_cast<py::ssize_t>(bins.size()));
  std::copy(bins.begin(), bins.end(), histogram.mutable_data());
  d["histogram"] = histogram;
  return d;
}

py::dict stats_of(const py::array& values, const rounding_arguments& args) {
  if (!holds<float>(values)) bad_dtype("stats", "values", "a float32 array", values);
  const num::stats_plan plan(parse_format_argument("stats", args.format), parse_spec("stats", args));
  num::stats_options options;
  options.random = random_of(args);
  options.first_index = args.first_index;
  const auto in = contiguous<float>(values);
  const auto input = elements(in);
  num::tensor_stats s;
  {
    py::gil_scoped_release unlocked;
    s = num::compute_stats(input, plan, options);
  }
  return stats_dict(s);
}

}  // namespace

void bind_stats(py::module_& m) {
  m.def("formats", &builtin_format_list,
        "The built-in formats: name, description, bits, precision (with the hidden bit), emin, emax, "
        "subnormals, infinities, max, min_normal, min_subnormal, epsilon.");
  m.def(
      "format_info", [](const std::string& name) { return format_dict(parse_format_argument("format_info", name), ""); },
      py::arg("format"),
      "The parameters of any format numlab parses (fp16, e4m3, e3m2, p=11,emin=-14,emax=15, ...), as formats() "
      "gives them.");
  m.def(
      "stats",
      [](const py::object& values, std::string format, std::string mode, int bits, std::uint64_t seed,
         std::uint64_t stream, std::uint64_t first_index, std::optional<std::string> overflow, std::string tininess,
         std::optional<std::string> specials, std::optional<bool> int8_symmetric, std::optional<int> margin,
         std::optional<float> given_scale, std::optional<float> tensor_amax) {
        const bool scaled = num::looks_like_scaled_format(format);
        // The scaled formats saturate unless told otherwise (OCP MX §6.3), as quantize and `numlab round` do.
        rounding_arguments rounding{format, mode, bits, overflow.value_or(scaled ? "saturate" : "ieee"),
                                    tininess, seed, stream, first_index};
        if (scaled) {
          scaled_arguments args{format, false, specials.value_or("nan-scale"), int8_symmetric.value_or(false),
                                margin.value_or(0), given_scale.value_or(1.0f), tensor_amax};
          return scaled_stats_of(as_array(values), rounding, args);
        }
        const std::pair<const char*, bool> scaled_only[] = {
            {"specials", specials.has_value()},        {"int8_symmetric", int8_symmetric.has_value()},
            {"margin", margin.has_value()},            {"given_scale", given_scale.has_value()},
            {"tensor_amax", tensor_amax.has_value()}};
        for (const auto& [name, given] : scaled_only)
          if (given)
            throw py::value_error("stats " + std::string(name) + ": only for a scaled format (" + format +
                                  " is a per-element format)");
        return stats_of(as_array(values), rounding);
      },
      py::arg("values"), py::arg("format") = "fp16", py::arg("mode") = "ne", py::kw_only(), py::arg("bits") = 32,
      py::arg("seed") = 0, py::arg("stream") = 0, py::arg("first_index") = 0, py::arg("overflow") = py::none(),
      py::arg("tininess") = "after", py::arg("specials") = py::none(), py::arg("int8_symmetric") = py::none(),
      py::arg("margin") = py::none(), py::arg("given_scale") = py::none(), py::arg("tensor_amax") = py::none(),
      R"(Statistics of float32 values as rounding them into `format` would make them.

A per-element format (fp16, bf16, e4m3, ...; num::compute_stats): count,
zeros, subnormals, underflows (nonzero values rounding to zero), overflows,
nans, infs, min_abs, min_nonzero_abs, max_abs, mean, rms, sum, sum_squares,
and a binade histogram: histogram[0] counts underflows, histogram[1 + i]
rounded magnitudes in [2^(e0+i), 2^(e0+i+1)) with e0 = hist_first_exponent,
histogram[-1] overflows. These are the columns of a run database's
tensor_stats table. overflow defaults to ieee.

A scaled format (mxfp8, mxfp4, nvfp4, fp8-block, ELEMENT/RULE[/BLOCK]; values
1-D as one row or 2-D as a row-major matrix; num::compute_scaled_stats, what
`numlab round --stats` prints): quantize's counts (elements, blocks, inexact,
block_underflow: nonzero values flushed to zero by their block's scale,
underflow_to_zero, saturated, scale_underflow, scale_overflow,
nan_scale_blocks), block_underflow_fraction (of nonzero finite values),
saturation_fraction (of finite values), snr_db, signal_energy, noise_energy,
finite, nonzero_finite, tensor_scale (NVFP4), scale_binades ({k: blocks whose
decode scale lies in [2^k, 2^(k+1))}), zero_scale_blocks, amax_over_scale
(per block, row-major: its amax over its decode scale), and amax (the largest
finite |x| of the values, 0 for none: the amax every scale rule takes). overflow defaults to
saturate; specials, int8_symmetric, margin, given_scale and tensor_amax as for
quantize(), and only for scaled formats.)");
}

}  // namespace numlab::python
