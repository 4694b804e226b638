// Internal: a rounding mode known at run time as a compile-time template
// argument, for the scaled kernels, which instantiate their loops per mode.
// Include it inside the including file's instruction-set region: the call
// and the instantiations it makes are compiled for that region (so it uses
// its own tag type, no std:: template; see avx2_region.hpp).
#pragma once

#include "libnum/rounding.hpp"

namespace num::scaled_detail {
namespace {

/// A rounding mode as a type: M::value.
template <rounding M>
struct mode_tag {
  static constexpr rounding value = M;
};

/// Returns run(mode_tag<mode>{}).
template <class Run>
inline __attribute__((always_inline)) auto with_mode(rounding mode, Run run) {
  using R = rounding;
  switch (mode) {
    case R::nearest_even: return run(mode_tag<R::nearest_even>{});
    case R::nearest_away: return run(mode_tag<R::nearest_away>{});
    case R::toward_zero: return run(mode_tag<R::toward_zero>{});
    case R::toward_positive: return run(mode_tag<R::toward_positive>{});
    case R::toward_negative: return run(mode_tag<R::toward_negative>{});
    case R::to_odd: return run(mode_tag<R::to_odd>{});
    case R::stochastic: break;
  }
  return run(mode_tag<R::stochastic>{});
}

}  // namespace
}  // namespace num::scaled_detail
