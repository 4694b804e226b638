// What the experiments' tests share: an experiment run at its smallest size
// (seed 1), and a number printed with printf's %.*g, the oracle of the cells
// the experiments print.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

#include "experiments/experiment.hpp"

namespace numlab::experiments::testing {

inline run_options tiny_options() {
  run_options o;
  o.tiny = true;
  o.seed = 1;
  return o;
}

/// The experiment `name` at its smallest size.
inline experiment_result run_tiny(const char* name) { return find_experiment(name).run(tiny_options()); }

/// x printed as "%.*g" with `digits` significant digits ("inf"/"-inf" for infinities).
inline std::string printf_g(double x, int digits) {
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, x);
  return buffer;
}

}  // namespace numlab::experiments::testing
