// Test support: set MXCSR bits (flush-to-zero, denormals-are-zero, rounding
// control) for a scope, as a caller's -ffast-math start-up code or
// torch.set_flush_denormal(True) would, and restore the old value however the
// scope ends. x86 only.
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>

namespace test_support {

inline constexpr unsigned mxcsr_flush_to_zero = 0x8000, mxcsr_denormals_are_zero = 0x0040;
/// MXCSR rounding control (bits 13-14): toward -inf, toward +inf, toward zero.
inline constexpr unsigned mxcsr_round_down = 0x2000, mxcsr_round_up = 0x4000, mxcsr_round_toward_zero = 0x6000;

/// ORs `bits` into the calling thread's MXCSR for its lifetime.
class mxcsr_bits {
 public:
  explicit mxcsr_bits(unsigned bits) : saved_(_mm_getcsr()) { _mm_setcsr(saved_ | bits); }
  ~mxcsr_bits() { _mm_setcsr(saved_); }
  mxcsr_bits(const mxcsr_bits&) = delete;
  mxcsr_bits& operator=(const mxcsr_bits&) = delete;

 private:
  unsigned saved_;
};

}  // namespace test_support
#endif
