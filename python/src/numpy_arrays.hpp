// NumPy arrays as std::span, without copying where the layout allows: a
// C-contiguous array of the right dtype is used in place; anything else of
// that dtype (a strided view) is copied once into a contiguous array.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

namespace numlab::python {

namespace py = pybind11;

/// Any array-like (array, list, scalar) as a NumPy array, as numpy.asarray makes it.
inline py::array as_array(const py::object& values) {
  return py::module_::import("numpy").attr("asarray")(values);
}

/// Whether `a` holds elements of type T (any layout).
template <class T>
bool holds(const py::array& a) {
  return py::isinstance<py::array_t<T>>(a);
}

/// `a` (whose dtype is T) as a C-contiguous array: itself when it already is one.
template <class T>
py::array_t<T, py::array::c_style> contiguous(const py::array& a) {
  return py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(a);
}

template <class T>
std::span<const T> elements(const py::array_t<T, py::array::c_style>& a) {
  return {a.data(), static_cast<std::size_t>(a.size())};
}

template <class T>
std::span<T> mutable_elements(py::array_t<T, py::array::c_style>& a) {
  return {a.mutable_data(), static_cast<std::size_t>(a.size())};
}

/// The shape of `a`, for an output of the same shape.
inline std::vector<py::ssize_t> shape_of(const py::array& a) { return {a.shape(), a.shape() + a.ndim()}; }

/// A new uninitialised C-contiguous array of `a`'s shape.
template <class T>
py::array_t<T, py::array::c_style> empty_like_shape(const py::array& a) {
  return py::array_t<T, py::array::c_style>(shape_of(a));
}

/// TypeError "<call>: <what> must be <expected>, not <dtype>".
[[noreturn]] inline void bad_dtype(std::string_view call, std::string_view what, std::string_view expected,
                                   const py::array& a) {
  throw py::type_error(std::string(call) + ": " + std::string(what) + " must be " + std::string(expected) +
                       ", not " + std::string(py::str(a.dtype())));
}

}  // namespace numlab::python
