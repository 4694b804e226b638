// Internal: a rounding mode (and the MX kernels' loop variant) known at run
// time as compile-time template arguments, for the scaled kernels, which
// instantiate their loops per mode.
// Include it inside the including file's instruction-set region: the call
// and the instantiations it makes are compiled for that region (so it uses
// its own tag types, no std:: template; see avx2_region.hpp).
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

/// A compile-time flag as a type: F::value.
template <bool B>
struct flag_tag {
  static constexpr bool value = B;
};

/// The MX kernels' loop variants: calls run(mode, int8, fused) with tags
/// for the instantiation a call of setup `k` needs: INT8 (each mode; its
/// values come from its codes), fused values (dequantized values wanted) for the modes training
/// uses (nearest-even forward, stochastic gradients; one instantiation more
/// each), or the mode's plain loop.
template <class Setup, class Run>
inline __attribute__((always_inline)) void with_mx_variant(const Setup& k, bool values, Run run) {
  const flag_tag<true> yes;
  const flag_tag<false> no;
  if (k.int8) return with_mode(k.spec.mode, [&](auto mode) { run(mode, yes, no); });
  if (values && k.spec.mode == rounding::nearest_even) return run(mode_tag<rounding::nearest_even>{}, no, yes);
  if (values && k.spec.mode == rounding::stochastic) return run(mode_tag<rounding::stochastic>{}, no, yes);
  with_mode(k.spec.mode, [&](auto mode) { run(mode, no, no); });
}

}  // namespace
}  // namespace num::scaled_detail
