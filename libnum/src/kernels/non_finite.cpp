// num::any_non_finite: the portable body (a branch-free OR over the exponent
// fields, which GCC and clang vectorise for the baseline instruction set) and
// the choice among the paths' bodies, made once per process.
#include <bit>
#include <cstdint>

#include "kernel_plan.hpp"
#include "libnum/array.hpp"

namespace num {
namespace kernels {

bool any_non_finite_scalar(const float* in, std::size_t n) {
  constexpr std::uint32_t exponent_field = 0x7F800000u;
  std::uint32_t hit = 0;
  for (std::size_t i = 0; i < n; ++i)
    hit |= static_cast<std::uint32_t>((std::bit_cast<std::uint32_t>(in[i]) & exponent_field) == exponent_field);
  return hit != 0;
}

}  // namespace kernels

namespace {

using non_finite_body = bool (*)(const float*, std::size_t);

non_finite_body body_for(simd_path p) {
  switch (p) {
    case simd_path::avx512: return kernels::any_non_finite_avx512;
    case simd_path::avx2: return kernels::any_non_finite_avx2;
    case simd_path::automatic:
    case simd_path::scalar: break;
  }
  return kernels::any_non_finite_scalar;
}

}  // namespace

bool any_non_finite(std::span<const float> values) {
  // The automatic path (NUMLAB_SIMD, else the best the CPU runs) is resolved
  // on the first call and kept: no feature query or getenv per call.
  static const non_finite_body automatic = body_for(resolve_simd_path(simd_path::automatic));
  return automatic(values.data(), values.size());
}

bool any_non_finite(std::span<const float> values, simd_path path) {
  return body_for(resolve_simd_path(path))(values.data(), values.size());
}

}  // namespace num
