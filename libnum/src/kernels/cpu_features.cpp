#include "libnum/cpu_features.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace num {
namespace {

// Bit `bit` of register `reg` (0 eax, 1 ebx, 2 ecx, 3 edx) of CPUID leaf/subleaf.
bool cpuid_bit([[maybe_unused]] unsigned leaf, [[maybe_unused]] unsigned subleaf, [[maybe_unused]] int reg,
               [[maybe_unused]] unsigned bit) {
#if defined(__x86_64__) || defined(__i386__)
  unsigned r[4] = {0, 0, 0, 0};
  if (static_cast<unsigned>(__get_cpuid_max(0, nullptr)) < leaf) return false;
  __cpuid_count(leaf, subleaf, r[0], r[1], r[2], r[3]);
  return (r[reg] >> bit & 1u) != 0;
#else
  return false;
#endif
}

}  // namespace

bool cpu_has_f16c() { return cpuid_bit(1, 0, 2, 29); }
bool cpu_has_bmi2() { return cpuid_bit(7, 0, 1, 8); }
bool cpu_has_avx512bf16() { return cpuid_bit(7, 1, 0, 5); }

}  // namespace num
