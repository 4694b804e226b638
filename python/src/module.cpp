// numlab._core: the compiled half of the Python package numlab.
#include "bindings.hpp"

PYBIND11_MODULE(_core, m) {
  m.doc() = "libnum's array kernels and statistics and the run database, for NumPy";
  m.attr("__version__") = NUMLAB_VERSION;
  numlab::python::bind_arrays(m);
  numlab::python::bind_scaled(m);
  numlab::python::bind_stats(m);
  numlab::python::bind_rundb(m);
}
