// An independent oracle for the smoke tests: round a double to a binary
// format of precision p and minimum exponent emin with nearest-even, by
// scaling to the target's ulp and using the FPU's ties-to-even rint. Valid
// for finite results inside the format's range (the tests stay there).
#pragma once

#include <cmath>

namespace numlab::experiments::testing {

inline double round_nearest_even(double x, int precision, int emin) {
  if (x == 0) return x;
  int exponent = std::ilogb(x);
  if (exponent < emin) exponent = emin;
  const double ulp = std::ldexp(1.0, exponent - (precision - 1));
  return std::nearbyint(x / ulp) * ulp;
}

inline double fp16(double x) { return round_nearest_even(x, 11, -14); }
inline double bf16(double x) { return round_nearest_even(x, 8, -126); }

}  // namespace numlab::experiments::testing
