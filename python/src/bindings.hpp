// The parts of the numlab Python extension, each adding its functions to the module.
#pragma once

#include <pybind11/pybind11.h>

namespace numlab::python {

/// round, encode, decode and ConversionReport.
void bind_arrays(pybind11::module_& m);
/// quantize and dequantize (scaled formats: OCP MX, NVFP4, FP8 recipes).
void bind_scaled(pybind11::module_& m);
/// stats, formats, format_info.
void bind_stats(pybind11::module_& m);
/// RunReader, RunWriter and RunDatabaseError.
void bind_rundb(pybind11::module_& m);

}  // namespace numlab::python
