// The keyword arguments of the scaled-format calls (quantize,
// quantize_dequantize, and stats given a scaled format), beside the element
// rounding's (arguments.hpp).
#pragma once

#include <optional>
#include <string>

#include <pybind11/numpy.h>

#include "arguments.hpp"

namespace numlab::python {

/// How a scaled-format call quantizes, beside the element rounding.
struct scaled_arguments {
  std::string format = "mxfp8";
  bool packed = false;
  std::string specials = "nan-scale";
  bool int8_symmetric = false;
  int margin = 0;
  float given_scale = 1.0f;
  std::optional<float> tensor_amax;
};

/// numlab.stats for a scaled format: num::compute_scaled_stats of float32
/// values (1-D: one row, 2-D: a row-major matrix) as a dict. Raises
/// ValueError/TypeError naming "stats" and the argument.
pybind11::dict scaled_stats_of(const pybind11::array& values, const rounding_arguments& rounding,
                               const scaled_arguments& args);

}  // namespace numlab::python
