// Internal: the vcvtps2ph rounding immediate of a plan, shared by the AVX2
// and AVX-512 paths (included inside their target regions).
#pragma once

namespace num::kernels {
namespace {

/// A compile-time vcvtps2ph immediate.
template <int I>
struct fp16_immediate {
  static constexpr int value = I;
};

/// Calls run(fp16_immediate<imm>{}) with the immediate for the plan's mode:
/// nearest-even, toward -inf, toward +inf, toward zero, exceptions suppressed
/// (_MM_FROUND_* values, bit 3 = no exceptions).
template <class Run>
inline __attribute__((always_inline)) void with_fp16_immediate(const kernel_plan& plan, Run run) {
  switch (plan.hardware_rounding_immediate) {
    case 0: return run(fp16_immediate<0x08>{});
    case 1: return run(fp16_immediate<0x09>{});
    case 2: return run(fp16_immediate<0x0A>{});
    default: return run(fp16_immediate<0x0B>{});
  }
}

}  // namespace
}  // namespace num::kernels
